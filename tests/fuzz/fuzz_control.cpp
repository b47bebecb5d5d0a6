// Fuzz target: control-socket commands (daemon/filter/control_commands), one command
// per input line, as `disksched ctl` or anyone with access to the socket sends them:
// before any client opened the device (no dispatcher) and against a live dispatcher
// over an LBN-only model. Every line must get one line of JSON with "ok".
// `save` and `reopen` are refused here: the targets have no save directory and no log.
// Anything thrown out of the handler is a bug (it must answer every line).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "daemon/filter/control_commands.hpp"
#include "daemon/filter/dispatcher.hpp"
#include "predictor/lbn_model.hpp"
#include "schedulers/registry.hpp"

namespace {

using namespace disksched;

void check_reply(const std::string& reply) {
  const auto j = nlohmann::json::parse(reply);  // throws, and so fails, if not JSON
  if (!j.is_object() || !j.contains("ok") || !j["ok"].is_boolean()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::int64_t now_ns = 0;
  auto model = std::make_unique<LbnModel>(1ull << 30);
  auto scheduler = make_scheduler("fcfs", *model);
  Dispatcher dispatcher(std::move(model), std::move(scheduler), {}, [&] { return now_ns += 1000; });
  SchedulerSpec configured = Registry::builtin().check("fcfs", LbnModel(1ull << 30));
  // No save directory and no log: `save` and `reopen` are refused, never touch files.
  ControlTarget unopened{nullptr, &configured, "tc=fua", ""};
  ControlTarget opened{&dispatcher, &configured, "tc=fua", ""};
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::size_t pos = 0;
  while (pos <= input.size()) {
    auto nl = input.find('\n', pos);
    if (nl == std::string::npos) nl = input.size();
    const std::string line = input.substr(pos, nl - pos);
    pos = nl + 1;
    check_reply(handle_control_command(line, unopened));
    check_reply(handle_control_command(line, opened));
  }
  return 0;
}
