// The control socket: show, stats and switch through a real Unix socket.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "daemon/filter/control.hpp"
#include "daemon/filter/control_commands.hpp"
#include "daemon/filter/control_save.hpp"
#include "daemon/filter/dispatcher.hpp"
#include "predictor/lbn_model.hpp"
#include "schedulers/registry.hpp"
#include "tests/scratch_dir.hpp"

using namespace disksched;
using Catch::Matchers::Contains;

namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

TEST_CASE("control socket: show, switch, stats", "[filter][control]") {
  auto model = std::make_unique<LbnModel>(1ull << 30);
  auto s = make_scheduler("fcfs", *model);
  Dispatcher d(std::move(model), std::move(s), {}, steady_ns);
  SchedulerSpec configured = Registry::builtin().check("fcfs", LbnModel(1ull << 30));
  const std::string path = "/tmp/disksched-ctl-" + std::to_string(getpid()) + ".sock";
  ControlTarget target{&d, &configured, "fua=critical", ""};
  ControlServer server(path, [&](const std::string& line) {
    return handle_control_command(line, target);
  });
  server.start();

  auto show = nlohmann::json::parse(control_request(path, "show"));
  REQUIRE(show["ok"] == true);
  REQUIRE(show["scheduler"] == "fcfs");
  REQUIRE(show["depth"] == 1);

  auto rec = LiveRecord::arriving(Op::Read, 0, 4096, 0, {});
  d.enter(rec);
  d.leave(rec, true);

  auto sw = nlohmann::json::parse(control_request(path, "switch sstf"));
  REQUIRE(sw["ok"] == true);
  REQUIRE(sw["previous"] == "fcfs");
  REQUIRE_THAT(sw["scheduler"].get<std::string>(), Contains("sstf"));
  REQUIRE_THAT(d.snapshot().scheduler, Contains("sstf"));

  auto bad = nlohmann::json::parse(control_request(path, "switch asatf"));
  REQUIRE(bad["ok"] == false);
  REQUIRE_THAT(bad["error"].get<std::string>(), Contains("rotational"));
  REQUIRE_THAT(d.snapshot().scheduler, Contains("sstf"));

  auto stats = nlohmann::json::parse(control_request(path, "stats"));
  REQUIRE(stats["requests"] == 1);
  REQUIRE(stats["switches"] == 1);
  REQUIRE(stats["mean_queue_len"] == 1.0);

  auto unknown = nlohmann::json::parse(control_request(path, "reboot"));
  REQUIRE(unknown["ok"] == false);

  // A second server on a live socket is refused; after stop the path is gone.
  REQUIRE_THROWS_WITH(ControlServer(path, [](const std::string&) { return std::string(); }),
                      Contains("in use"));
  server.stop();
  REQUIRE(access(path.c_str(), F_OK) != 0);
  REQUIRE_THROWS_WITH(control_request(path, "show"), Contains("cannot connect"));
}

namespace {

std::string test_socket_path(const char* name) {
  return "/tmp/disksched-ctl-" + std::to_string(getpid()) + "-" + name + ".sock";
}

int connect_to(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  REQUIRE(connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0);
  return fd;
}

std::string echo_handler(const std::string& line) {
  return nlohmann::json({{"ok", true}, {"line", line}}).dump();
}

}  // namespace

TEST_CASE("control socket: an exiting server leaves a socket path another server took over",
          "[filter][control]") {
  const std::string path = test_socket_path("takeover");
  ControlServer first(path, echo_handler);
  first.start();
  // The file is removed (an operator, a tmp cleaner) and a second instance binds the path.
  REQUIRE(unlink(path.c_str()) == 0);
  ControlServer second(path, echo_handler);
  second.start();
  first.stop();
  auto r = nlohmann::json::parse(control_request(path, "show"));
  REQUIRE(r["ok"] == true);
  second.stop();
  REQUIRE(access(path.c_str(), F_OK) != 0);
}

TEST_CASE("control socket: clients that say nothing do not hold up the others",
          "[filter][control]") {
  const std::string path = test_socket_path("idle");
  ControlServer server(path, echo_handler);
  server.start();
  // Served one at a time, each idle client would hold the socket for kIdleMs and the
  // request below would wait 8 x 2 s, past its own 5 s limit.
  std::vector<int> idle;
  for (int i = 0; i < 8; ++i) idle.push_back(connect_to(path));
  auto r = nlohmann::json::parse(control_request(path, "show"));
  REQUIRE(r["line"] == "show");
  for (int fd : idle) close(fd);
  server.stop();
}

TEST_CASE("control socket: clients that trickle bytes lose their slot at the line deadline",
          "[filter][control]") {
  const std::string path = test_socket_path("trickle");
  ControlServer server(path, echo_handler);
  server.start();
  // Every slot taken by a client sending a byte (never a newline) every 400 ms, well within
  // any per-byte timeout: each must be dropped once the whole line is late.
  std::vector<int> slow;
  for (std::size_t i = 0; i < ControlServer::kMaxClients; ++i) slow.push_back(connect_to(path));
  std::size_t dropped = 0;
  // Bounded: far beyond kIdleMs; a server that keeps them fails here.
  for (int round = 0; round < 30 && dropped < slow.size(); ++round) {
    dropped = 0;
    for (int fd : slow) {
      pollfd p{fd, POLLIN, 0};
      // The server closed it (EOF) or a byte can no longer be sent.
      const bool closed = poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP)) != 0;
      if (closed || send(fd, "x", 1, MSG_NOSIGNAL) != 1) ++dropped;
    }
    if (dropped < slow.size()) usleep(400'000);
  }
  REQUIRE(dropped == slow.size());
  auto r = nlohmann::json::parse(control_request(path, "show"));
  REQUIRE(r["line"] == "show");
  for (int fd : slow) close(fd);
  server.stop();
}

TEST_CASE("control socket: an over-long line gets an error reply; CRLF is a line end",
          "[filter][control]") {
  const std::string path = test_socket_path("long");
  ControlServer server(path, echo_handler);
  server.start();
  const std::string too_long(ControlServer::kMaxLine + 1, 'x');
  auto r = nlohmann::json::parse(control_request(path, too_long));
  REQUIRE(r["ok"] == false);
  REQUIRE_THAT(r["error"].get<std::string>(), Contains("longer than 65536 bytes"));
  // A line of exactly the limit is still a command.
  const std::string at_limit(ControlServer::kMaxLine, 'y');
  REQUIRE(nlohmann::json::parse(control_request(path, at_limit))["ok"] == true);
  REQUIRE(nlohmann::json::parse(control_request(path, "show\r"))["line"] == "show");
  server.stop();
}

TEST_CASE("control commands: 'show' ended by CRLF is show", "[filter][control]") {
  SchedulerSpec configured = Registry::builtin().check("fcfs", LbnModel(1ull << 30));
  ControlTarget target{nullptr, &configured, "", ""};
  auto r = nlohmann::json::parse(handle_control_command("show\r", target));
  REQUIRE(r["ok"] == true);
  REQUIRE(r["scheduler"] == "fcfs");
  auto s = nlohmann::json::parse(handle_control_command("switch sstf \r", target));
  REQUIRE(s["ok"] == true);
  REQUIRE_THAT(configured.text(), Catch::Matchers::StartsWith("sstf"));
  auto reopen = nlohmann::json::parse(handle_control_command("reopen", target));
  REQUIRE(reopen["ok"] == false);
  REQUIRE_THAT(reopen["error"].get<std::string>(), Contains("sched-log="));
}

using testing::put;
using testing::ScratchDir;
using testing::slurp;

TEST_CASE("save: only into sched-save-dir, by name or by a path in it", "[filter][control][save]") {
  ScratchDir dir, elsewhere;
  REQUIRE_THROWS_WITH(save_in_directory("", "p.json", "{}"), Contains("sched-save-dir=DIR"));
  REQUIRE(save_in_directory(dir.path, "p.json", "one\n") == dir / "p.json");
  REQUIRE(slurp(dir / "p.json") == "one\n");
  REQUIRE(save_in_directory(dir.path, dir / "q.json", "two\n") == dir / "q.json");
  REQUIRE(slurp(dir / "q.json") == "two\n");
  REQUIRE_THROWS_WITH(save_in_directory(dir.path, elsewhere / "p.json", "x"),
                      Contains("is not in the save directory"));
  REQUIRE_THROWS_WITH(save_in_directory(dir.path, "sub/p.json", "x"),
                      Contains("a file name or an absolute path"));
  REQUIRE_THROWS_WITH(save_in_directory(dir.path, dir / "..", "x"), Contains("needs a file name"));
  REQUIRE(access((elsewhere / "p.json").c_str(), F_OK) != 0);
  // Nothing but the two profiles is left behind (no temporary files).
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path)) ++files;
  REQUIRE(files == 2);
}

TEST_CASE("save: a FIFO, a link or a directory at the name is refused, not opened or followed",
          "[filter][control][save]") {
  ScratchDir dir, elsewhere;
  // A FIFO nobody reads: opening it for writing would block the control thread for good.
  REQUIRE(mkfifo((dir / "fifo.json").c_str(), 0600) == 0);
  REQUIRE_THROWS_WITH(save_in_directory(dir.path, "fifo.json", "x"),
                      Contains("is a FIFO") && Contains("regular files"));
  // A symbolic link to a file elsewhere (as root: /etc/shadow): its target is untouched.
  put(elsewhere / "victim", "precious\n");
  REQUIRE(symlink((elsewhere / "victim").c_str(), (dir / "link.json").c_str()) == 0);
  REQUIRE_THROWS_WITH(save_in_directory(dir.path, "link.json", "x"),
                      Contains("is a symbolic link") && Contains("never follows a link"));
  REQUIRE(slurp(elsewhere / "victim") == "precious\n");
  REQUIRE(mkdir((dir / "d.json").c_str(), 0700) == 0);
  REQUIRE_THROWS_WITH(save_in_directory(dir.path, "d.json", "x"), Contains("is a directory"));
}

TEST_CASE("save: an existing profile is replaced by rename, not rewritten in place",
          "[filter][control][save]") {
  ScratchDir dir, elsewhere;
  put(elsewhere / "victim", "precious\n");
  // A hard link in the save directory to a file elsewhere: writing in place would change
  // the other name's contents too.
  REQUIRE(link((elsewhere / "victim").c_str(), (dir / "p.json").c_str()) == 0);
  save_in_directory(dir.path, "p.json", "new\n");
  REQUIRE(slurp(dir / "p.json") == "new\n");
  REQUIRE(slurp(elsewhere / "victim") == "precious\n");
}

TEST_CASE("control save: refused without a save directory; writes with the lock released",
          "[filter][control][save]") {
  auto model = load_model("hp97560");
  auto s = make_scheduler("fcfs", *model);
  Dispatcher d(std::move(model), std::move(s), {}, steady_ns);
  SchedulerSpec configured = Registry::builtin().check("fcfs", LbnModel(1ull << 30));
  ControlTarget off{&d, &configured, "", ""};
  auto r = nlohmann::json::parse(handle_control_command("save p.json", off));
  REQUIRE(r["ok"] == false);
  REQUIRE_THAT(r["error"].get<std::string>(), Contains("sched-save-dir"));

  ScratchDir dir;
  ControlTarget on{&d, &configured, "", dir.path};
  REQUIRE(nlohmann::json::parse(handle_control_command("show", on))["save_dir"] == dir.path);
  std::mutex mu;
  std::unique_lock lock(mu);
  r = nlohmann::json::parse(handle_control_command("save p.json", on, &lock));
  INFO(r.dump());
  REQUIRE(r["ok"] == true);
  REQUIRE(r["saved"] == dir / "p.json");
  // The device lock (which new connections wait for) was let go before the file was
  // written, so a stalled file system holds up only this command.
  REQUIRE_FALSE(lock.owns_lock());
  REQUIRE(nlohmann::json::parse(slurp(dir / "p.json"))["schema"] == "disksched-geometry");
}
