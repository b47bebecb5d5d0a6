// What the rotational scheduler tests start from: the fake disk, requests on it, the
// registry that builds the schedulers, and the short names every test file uses for them.
#pragma once

#include <catch2/catch.hpp>

#include "predictor/device_model.hpp"
#include "schedulers/registry.hpp"
#include "tests/schedulers/rotational/fake_disk.hpp"
#include "tests/schedulers/rotational/requests.hpp"

using namespace disksched;  // NOLINT(google-build-using-namespace): test files only
using disksched::testing::FakeDisk;
using disksched::testing::head_at;
using disksched::testing::make_request;
