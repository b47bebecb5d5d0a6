// Numerical integration of the sled's equation of motion, independent of the closed
// forms: m y'' = +-F - k y under bang-bang control with one switch, integrated by RK4
// with each event (the switch, the end) located by bisection inside its step.
#pragma once

#include <cmath>

namespace mems_test {

struct Trajectory {
  double time_s = 0;   // from the start to the end event
  double end_m = 0;    // position at the end event
};

// From (y0, v0): force sigma * a until the sled crosses `switch_m` moving towards sigma,
// then -sigma * a until its velocity reaches v_end (approached from the sigma side).
// omega2 = k / m. dt is the RK4 step.
inline Trajectory integrate_bang_bang(double y0, double v0, int sigma, double switch_m,
                                      double v_end, double a, double omega2, double dt = 2e-8) {
  struct S {
    double y, v;
  };
  auto step = [&](S s, double f, double h) {
    auto acc = [&](double y) { return f * a - omega2 * y; };
    const double k1y = s.v, k1v = acc(s.y);
    const double k2y = s.v + 0.5 * h * k1v, k2v = acc(s.y + 0.5 * h * k1y);
    const double k3y = s.v + 0.5 * h * k2v, k3v = acc(s.y + 0.5 * h * k2y);
    const double k4y = s.v + h * k3v, k4v = acc(s.y + h * k3y);
    return S{s.y + h / 6 * (k1y + 2 * k2y + 2 * k3y + k4y), s.v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)};
  };
  // Runs with force f until g(state) turns >= 0; returns the time taken, leaves s there.
  auto run = [&](S& s, double f, auto g) {
    double t = 0;
    if (g(s) >= 0) return t;
    for (long n = 0; n < 100'000'000; ++n) {
      const S next = step(s, f, dt);
      if (g(next) >= 0) {
        double lo = 0, hi = dt;
        for (int i = 0; i < 60; ++i) {
          const double mid = 0.5 * (lo + hi);
          (g(step(s, f, mid)) >= 0 ? hi : lo) = mid;
        }
        s = step(s, f, hi);
        return t + hi;
      }
      s = next;
      t += dt;
    }
    return t;
  };
  S s{y0, v0};
  Trajectory tr;
  // Phase 1 ends where the sled passes the switch point moving towards sigma.
  tr.time_s = run(s, sigma, [&](const S& q) { return q.v * sigma > 0 ? sigma * (q.y - switch_m) : -1.0; });
  // Phase 2 decelerates (sigma * v falls monotonically while |k y| < F).
  tr.time_s += run(s, -sigma, [&](const S& q) { return sigma * (v_end - q.v); });
  tr.end_m = s.y;
  return tr;
}

}  // namespace mems_test
