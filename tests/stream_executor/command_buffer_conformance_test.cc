// The command buffer contract every platform in the binary must keep (host
// in CI, CUDA on the GPU host, ROCm where one exists): the state machine,
// argument and dependency checks, update kinds, empty graphs, the
// re-instantiation fallback and the counters, with every result read back.
// What platforms may do differently lives in command_buffer_test.cc.

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/stream_executor/command_buffer_test_base.h"

namespace xla_lite::testing {
namespace {

constexpr int kN = 1000;

auto Tie(const se::CommandBuffer::Counters& c) {
  return std::make_tuple(c.nodes, c.instantiations, c.node_updates,
                         c.reinstantiations, c.submits);
}

class CommandBufferConformanceTest : public CommandBufferTestBase {
 protected:
  // One command of each kind: y = 1; y += 2x; z = y; a child that sets
  // w = 3; a barrier after all of them.
  struct OneOfEach {
    const Command* memset = nullptr;
    const Command* launch = nullptr;
    const Command* copy = nullptr;
    const Command* child = nullptr;
    const Command* barrier = nullptr;
    std::vector<const Command*> all() const {
      return {memset, launch, copy, child, barrier};
    }
  };

  void SetUp() override {
    CommandBufferTestBase::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    std::mt19937 rng(7);
    x_.resize(kN);
    for (float& v : x_) v = std::uniform_real_distribution<float>(-1, 1)(rng);
    dx_ = Upload(x_);
    dy_ = Filled(kN, 0), dz_ = Filled(kN, 0), dw_ = Filled(kN, 0);
  }

  void Record(CommandBuffer& cb, OneOfEach& out) {
    auto memset = cb.CreateMemset(dy_.cref(), FloatBits(1), kN * 4, {});
    ASSERT_TRUE(memset.ok()) << memset.status();
    auto launch = cb.CreateLaunch(dims_, *kernel_,
                                  Args(2, dx_.cref(), dy_.cref(), kN), {*memset});
    ASSERT_TRUE(launch.ok()) << launch.status();
    auto copy = cb.CreateMemcpyD2D(dz_.cref(), dy_.cref(), kN * 4, {*launch});
    ASSERT_TRUE(copy.ok()) << copy.status();
    auto graph = TraceFills({{dw_.cref(), 3}});
    ASSERT_NE(graph, nullptr);
    auto child = cb.CreateChild(*graph, {});
    ASSERT_TRUE(child.ok()) << child.status();
    auto barrier = cb.CreateBarrier({*memset, *launch, *copy, *child});
    ASSERT_TRUE(barrier.ok()) << barrier.status();
    out = {*memset, *launch, *copy, *child, *barrier};
  }

  // What one run of OneOfEach leaves behind, after zeroing its outputs so
  // that only the run can have written them.
  void ExpectOneOfEachRun(CommandBuffer& cb, const std::string& what) {
    for (auto* mem : {dy_.ptr(), dz_.ptr(), dw_.ptr()}) {
      ASSERT_TRUE(stream_->Memset32(mem, 0, kN * 4).ok());
    }
    absl::Status submitted = cb.Submit(stream_.get());
    ASSERT_TRUE(submitted.ok()) << what << ": " << submitted;
    std::vector<float> y = Download(dy_.cref()), z = Download(dz_.cref()),
                       w = Download(dw_.cref());
    for (int i = 0; i < kN; ++i) {
      ASSERT_FLOAT_EQ(y[i], 1 + 2 * x_[i]) << what << " y[" << i << "]";
      ASSERT_FLOAT_EQ(z[i], y[i]) << what << " z[" << i << "]";
      ASSERT_FLOAT_EQ(w[i], 3) << what << " w[" << i << "]";
    }
  }

  se::LaunchDimensions dims_ = se::LaunchDimensionsFor(kN, 128);
  std::vector<float> x_;
  se::ScopedDeviceAddress dx_, dy_, dz_, dw_;
};

// Each public call and the states it is legal in; every other state must
// refuse it with FAILED_PRECONDITION and change nothing.
TEST_P(CommandBufferConformanceTest, EveryCallIsRefusedInTheWrongState) {
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  OneOfEach c;
  Record(*cb, c);
  if (HasFatalFailure()) return;
  auto spare = TraceFills({{dw_.cref(), 9}});
  ASSERT_NE(spare, nullptr);
  // Calls that would change the results if they were applied.
  se::KernelArgs args = Args(100, dx_.cref(), dy_.cref(), kN);
  struct Call {
    const char* name;
    std::vector<State> legal;
    std::function<absl::Status()> run;
  };
  const std::vector<State> create = {State::kCreate};
  const std::vector<State> update = {State::kUpdate};
  const std::vector<State> finalized = {State::kFinalized};
  std::vector<Call> calls = {
      {"CreateLaunch", create,
       [&] { return cb->CreateLaunch(dims_, *kernel_, args, {}).status(); }},
      {"CreateMemcpyD2D", create,
       [&] {
         return cb->CreateMemcpyD2D(dz_.cref(), dx_.cref(), 64, {}).status();
       }},
      {"CreateMemset", create,
       [&] { return cb->CreateMemset(dz_.cref(), 0, 64, {}).status(); }},
      {"CreateChild", create, [&] { return cb->CreateChild(*spare, {}).status(); }},
      {"CreateBarrier", create, [&] { return cb->CreateBarrier({}).status(); }},
      {"UpdateLaunch", update,
       [&] { return cb->UpdateLaunch(c.launch, dims_, *kernel_, args); }},
      {"UpdateMemcpyD2D", update,
       [&] { return cb->UpdateMemcpyD2D(c.copy, dz_.cref(), dx_.cref(), 64); }},
      {"UpdateMemset", update,
       [&] { return cb->UpdateMemset(c.memset, dy_.cref(), 0, 64); }},
      {"UpdateChild", update, [&] { return cb->UpdateChild(c.child, *spare); }},
      {"Finalize", {State::kCreate, State::kUpdate}, [&] { return cb->Finalize(); }},
      {"Update", finalized, [&] { return cb->Update(); }},
      {"Submit", finalized, [&] { return cb->Submit(stream_.get()); }},
  };
  auto refuse_all_but_legal = [&] {
    State state = cb->state();
    auto before = Tie(cb->counters());
    for (const Call& call : calls) {
      if (absl::c_linear_search(call.legal, state)) continue;
      absl::Status status = call.run();
      EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition)
          << call.name << " in " << se::CommandBuffer::StateName(state) << ": "
          << status;
      EXPECT_NE(status.message().find(call.name), std::string::npos) << status;
      EXPECT_NE(status.message().find(se::CommandBuffer::StateName(state)),
                std::string::npos)
          << status;
      EXPECT_EQ(cb->state(), state) << call.name;
      EXPECT_EQ(Tie(cb->counters()), before) << call.name;
    }
  };
  EXPECT_EQ(cb->state(), State::kCreate);
  refuse_all_but_legal();
  ASSERT_TRUE(cb->Finalize().ok());
  EXPECT_EQ(cb->state(), State::kFinalized);
  refuse_all_but_legal();
  ExpectOneOfEachRun(*cb, "finalized");
  ASSERT_TRUE(cb->Update().ok());
  EXPECT_EQ(cb->state(), State::kUpdate);
  refuse_all_but_legal();
  ASSERT_TRUE(cb->Finalize().ok());
  ExpectOneOfEachRun(*cb, "finalized again");
  EXPECT_EQ(Tie(cb->counters()), std::make_tuple(5, 1, 0, 0, 2));
}

// An update of a command of another kind is INVALID_ARGUMENT naming both
// kinds, and changes nothing: no update counted, nothing re-instantiated,
// the recorded work intact.
TEST_P(CommandBufferConformanceTest, UpdatesOfAnotherKindAreRefused) {
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  OneOfEach c;
  Record(*cb, c);
  if (HasFatalFailure()) return;
  auto spare = TraceFills({{dy_.cref(), 9}, {dz_.cref(), 9}});
  ASSERT_NE(spare, nullptr);
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Update().ok());
  struct UpdateCall {
    const char* name;
    Command::Kind kind;
    std::function<absl::Status(const Command*)> run;
  };
  std::vector<UpdateCall> updates = {
      {"UpdateLaunch", Command::Kind::kLaunch,
       [&](const Command* command) {
         return cb->UpdateLaunch(command, dims_, *kernel_,
                                 Args(100, dx_.cref(), dy_.cref(), kN));
       }},
      {"UpdateMemcpyD2D", Command::Kind::kMemcpy,
       [&](const Command* command) {
         return cb->UpdateMemcpyD2D(command, dy_.cref(), dx_.cref(), kN * 4);
       }},
      {"UpdateMemset", Command::Kind::kMemset,
       [&](const Command* command) {
         return cb->UpdateMemset(command, dy_.cref(), FloatBits(100), kN * 4);
       }},
      {"UpdateChild", Command::Kind::kChild,
       [&](const Command* command) { return cb->UpdateChild(command, *spare); }},
  };
  for (const UpdateCall& update : updates) {
    for (const Command* command : c.all()) {
      if (command->kind() == update.kind) continue;
      absl::Status status = update.run(command);
      EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument)
          << update.name << " of " << command->label() << ": " << status;
      for (absl::string_view word :
           {absl::string_view(update.name),
            se::CommandBuffer::KindName(update.kind),
            se::CommandBuffer::KindName(command->kind())}) {
        EXPECT_NE(status.message().find(word), std::string::npos)
            << word << " missing from: " << status;
      }
    }
  }
  ASSERT_TRUE(cb->Finalize().ok());
  ExpectOneOfEachRun(*cb, "after refused updates");
  EXPECT_EQ(Tie(cb->counters()), std::make_tuple(5, 1, 0, 0, 1));
}

// A command of another buffer (or none) is neither a dependency nor
// something to update.
TEST_P(CommandBufferConformanceTest, ForeignCommandsAreRefused) {
  auto cb = NewCommandBuffer(), other = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  ASSERT_NE(other, nullptr);
  OneOfEach mine, theirs;
  Record(*cb, mine);
  Record(*other, theirs);
  if (HasFatalFailure()) return;
  auto spare = TraceFills({});
  ASSERT_NE(spare, nullptr);
  for (const Command* foreign : {theirs.memset, theirs.barrier,
                                 static_cast<const Command*>(nullptr)}) {
    std::vector<const Command*> deps = {mine.memset, foreign};
    for (absl::Status status :
         {cb->CreateLaunch(dims_, *kernel_, Args(1, dx_.cref(), dy_.cref(), kN),
                           deps)
              .status(),
          cb->CreateMemcpyD2D(dz_.cref(), dy_.cref(), 64, deps).status(),
          cb->CreateMemset(dz_.cref(), 0, 64, deps).status(),
          cb->CreateChild(*spare, deps).status(),
          cb->CreateBarrier(deps).status()}) {
      EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
      EXPECT_NE(status.message().find("not a command of this command buffer"),
                std::string::npos)
          << status;
    }
  }
  EXPECT_EQ(cb->counters().nodes, 5);
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Update().ok());
  for (absl::Status status :
       {cb->UpdateLaunch(theirs.launch, dims_, *kernel_,
                         Args(1, dx_.cref(), dy_.cref(), kN)),
        cb->UpdateMemcpyD2D(theirs.copy, dz_.cref(), dy_.cref(), 64),
        cb->UpdateMemset(theirs.memset, dy_.cref(), 0, 64),
        cb->UpdateChild(theirs.child, *spare),
        cb->UpdateMemset(nullptr, dy_.cref(), 0, 64)}) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  }
  ASSERT_TRUE(cb->Finalize().ok());
  ExpectOneOfEachRun(*cb, "after foreign commands");
  EXPECT_EQ(Tie(cb->counters()), std::make_tuple(5, 1, 0, 0, 1));
}

// Arguments no platform can run are refused up front, with nothing recorded
// or changed.
TEST_P(CommandBufferConformanceTest, BadArgumentsAreRefused) {
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  OneOfEach c;
  Record(*cb, c);
  if (HasFatalFailure()) return;
  se::DeviceAddressBase small = dz_.cref().GetByteSlice(0, 64);
  se::KernelArgs three_args;
  three_args.AddScalar(1.0f);
  three_args.AddAddress(dx_.cref());
  three_args.AddAddress(dy_.cref());
  se::LaunchDimensions empty_grid(0, 128);
  auto refused = [](absl::Status status) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  };
  refused(cb->CreateMemset(small, 0, 6, {}).status());
  refused(cb->CreateMemset(small, 0, 128, {}).status());
  refused(cb->CreateMemcpyD2D(small, dy_.cref(), 128, {}).status());
  refused(cb->CreateMemcpyD2D(dy_.cref(), small, 128, {}).status());
  refused(cb->CreateLaunch(dims_, *kernel_, three_args, {}).status());
  refused(cb->CreateLaunch(empty_grid, *kernel_,
                           Args(1, dx_.cref(), dy_.cref(), kN), {})
              .status());
  EXPECT_EQ(cb->counters().nodes, 5);
  ASSERT_TRUE(cb->Finalize().ok());
  refused(cb->Submit(nullptr));
  ASSERT_TRUE(cb->Update().ok());
  refused(cb->UpdateMemset(c.memset, dy_.cref(), 0, 6));
  refused(cb->UpdateMemset(c.memset, small, 0, kN * 4));
  refused(cb->UpdateMemcpyD2D(c.copy, small, dy_.cref(), kN * 4));
  refused(cb->UpdateLaunch(c.launch, dims_, *kernel_, three_args));
  refused(cb->UpdateLaunch(c.launch, empty_grid, *kernel_,
                           Args(1, dx_.cref(), dy_.cref(), kN)));
  ASSERT_TRUE(cb->Finalize().ok());
  ExpectOneOfEachRun(*cb, "after bad arguments");
  EXPECT_EQ(Tie(cb->counters()), std::make_tuple(5, 1, 0, 0, 1));
}

// A dependency given twice is one edge.
TEST_P(CommandBufferConformanceTest, DuplicateDependenciesAreOneEdge) {
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto zero = cb->CreateMemset(dy_.cref(), 0, kN * 4, {});
  ASSERT_TRUE(zero.ok());
  auto launch = cb->CreateLaunch(dims_, *kernel_,
                                 Args(2, dx_.cref(), dy_.cref(), kN),
                                 {*zero, *zero, *zero});
  ASSERT_TRUE(launch.ok()) << launch.status();
  auto barrier = cb->CreateBarrier({*launch, *zero, *launch});
  ASSERT_TRUE(barrier.ok()) << barrier.status();
  EXPECT_EQ((*launch)->dependencies(), std::vector<int>{(*zero)->id()});
  EXPECT_EQ((*barrier)->dependencies(),
            (std::vector<int>{(*launch)->id(), (*zero)->id()}));
  EXPECT_EQ((*zero)->dependents(),
            (std::vector<int>{(*launch)->id(), (*barrier)->id()}));
  std::vector<std::string> lines = absl::StrSplit(cb->ToDot(), '\n');
  EXPECT_EQ(absl::c_count_if(lines,
                             [](const std::string& line) {
                               return line.find("->") != std::string::npos;
                             }),
            3)
      << cb->ToDot();
  ASSERT_TRUE(cb->Finalize().ok());
  for (int run = 0; run < 3; ++run) ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  std::vector<float> y = Download(dy_.cref());
  for (int i = 0; i < kN; ++i) ASSERT_FLOAT_EQ(y[i], 2 * x_[i]) << i;
}

// Dependencies alone order the work: read-modify-writes of one buffer, a
// copy before the buffer is overwritten, and two independent branches
// joined by a barrier. Replayed, so overlapping replays would show too.
TEST_P(CommandBufferConformanceTest, DependenciesOrderTheWork) {
  auto dp = Filled(kN, 0), dq = Filled(kN, 0);
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto launch = [&](float a, const se::ScopedDeviceAddress& x,
                    const se::ScopedDeviceAddress& y,
                    se::CommandBuffer::Dependencies deps) {
    auto command = cb->CreateLaunch(dims_, *kernel_,
                                    Args(a, x.cref(), y.cref(), kN), deps);
    EXPECT_TRUE(command.ok()) << command.status();
    return command.ok() ? *command : nullptr;
  };
  // y = 0; y += x; y += x; z = y; y = 100.
  auto zero = cb->CreateMemset(dy_.cref(), 0, kN * 4, {});
  ASSERT_TRUE(zero.ok());
  const Command* first = launch(1, dx_, dy_, {*zero});
  const Command* second = launch(1, dx_, dy_, {first});
  auto copy = cb->CreateMemcpyD2D(dz_.cref(), dy_.cref(), kN * 4, {second});
  ASSERT_TRUE(copy.ok());
  ASSERT_TRUE(cb->CreateMemset(dy_.cref(), FloatBits(100), kN * 4, {*copy}).ok());
  // p = 0; q = 0; p += x and q += 2x independently; join; q += p.
  auto p0 = cb->CreateMemset(dp.cref(), 0, kN * 4, {});
  auto q0 = cb->CreateMemset(dq.cref(), 0, kN * 4, {});
  ASSERT_TRUE(p0.ok() && q0.ok());
  const Command* p = launch(1, dx_, dp, {*p0});
  const Command* q = launch(2, dx_, dq, {*q0});
  auto join = cb->CreateBarrier({p, q});
  ASSERT_TRUE(join.ok());
  ASSERT_NE(launch(1, dp, dq, {*join}), nullptr);
  ASSERT_TRUE(cb->Finalize().ok());
  for (int run = 0; run < 50; ++run) ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  std::vector<float> y = Download(dy_.cref()), z = Download(dz_.cref()),
                     qv = Download(dq.cref());
  for (int i = 0; i < kN; ++i) {
    ASSERT_FLOAT_EQ(z[i], 2 * x_[i]) << i;
    ASSERT_FLOAT_EQ(y[i], 100) << i;
    ASSERT_FLOAT_EQ(qv[i], 3 * x_[i]) << i;
  }
}

// An empty command buffer instantiates, submits and updates like any other.
TEST_P(CommandBufferConformanceTest, EmptyCommandBufferSubmits) {
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  ASSERT_TRUE(cb->Finalize().ok());
  for (int run = 0; run < 10; ++run) ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  ASSERT_TRUE(cb->Update().ok());
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  // The stream keeps working after it.
  ASSERT_TRUE(stream_->Memset32(dy_.ptr(), FloatBits(4), kN * 4).ok());
  EXPECT_FLOAT_EQ(Download(dy_.cref())[kN - 1], 4);
  EXPECT_EQ(Tie(cb->counters()), std::make_tuple(0, 1, 0, 0, 11));
  EXPECT_EQ(cb->ToDot(), "digraph command_buffer {\n}\n");
}

// An empty trace is a child that does nothing but still orders its
// dependents. Turning it into a non-empty one (or back) changes the child's
// topology, which no platform updates in place: each re-instantiates.
TEST_P(CommandBufferConformanceTest, EmptyChildOrdersAndGrows) {
  auto ones = Filled(kN, 1);
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto zero = cb->CreateMemset(dy_.cref(), 0, kN * 4, {});
  ASSERT_TRUE(zero.ok());
  absl::StatusOr<const Command*> child;
  {
    auto empty = TraceFills({});
    ASSERT_NE(empty, nullptr);
    child = cb->CreateChild(*empty, {*zero});
    ASSERT_TRUE(child.ok()) << child.status();
  }
  auto launch = cb->CreateLaunch(dims_, *kernel_,
                                 Args(1, ones.cref(), dy_.cref(), kN), {*child});
  ASSERT_TRUE(launch.ok());
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy_.cref())[1], 1);

  for (bool fill : {true, false, true}) {
    auto graph = TraceFills(fill ? std::vector<Fill>{{dy_.cref(), 5}}
                                 : std::vector<Fill>{});
    ASSERT_NE(graph, nullptr);
    ASSERT_TRUE(cb->Update().ok());
    ASSERT_TRUE(cb->UpdateChild(*child, *graph).ok());
    graph.reset();
    ASSERT_TRUE(cb->Finalize().ok());
    ASSERT_TRUE(cb->Submit(stream_.get()).ok());
    EXPECT_FLOAT_EQ(Download(dy_.cref())[1], fill ? 6 : 1) << fill;
  }
  EXPECT_EQ(Tie(cb->counters()), std::make_tuple(3, 1, 3, 3, 4));
}

// The re-instantiation fallback: a child of another shape is refused in
// place on every platform (CUDA and HIP require the same topology; the host
// needs the same number of operations) and applied by re-instantiating
// exactly once, which must keep what earlier in-place updates changed and
// apply what the same cycle changed in place. Whether a child of the same
// shape updates in place is up to the platform (HIP 5 cannot), so only its
// results are checked here.
TEST_P(CommandBufferConformanceTest, RefusedUpdateReinstantiates) {
  auto dx2 = Filled(kN, 5), dv = Filled(kN, 0);
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  // y = 0; y += 1 * x; child: z = 1.
  auto zero = cb->CreateMemset(dy_.cref(), 0, kN * 4, {});
  ASSERT_TRUE(zero.ok());
  auto launch = cb->CreateLaunch(dims_, *kernel_,
                                 Args(1, dx_.cref(), dy_.cref(), kN), {*zero});
  ASSERT_TRUE(launch.ok());
  absl::StatusOr<const Command*> child;
  {
    auto graph = TraceFills({{dz_.cref(), 1}});
    ASSERT_NE(graph, nullptr);
    child = cb->CreateChild(*graph, {});
    ASSERT_TRUE(child.ok());
  }
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy_.cref())[3], x_[3]);
  EXPECT_FLOAT_EQ(Download(dz_.cref())[3], 1);

  // Re-instantiations caused by the last update cycle.
  int64_t reinstantiations = 0;
  auto update = [&](std::vector<Fill> fills, const se::ScopedDeviceAddress& x) {
    reinstantiations = cb->counters().reinstantiations;
    auto graph = TraceFills(fills);
    ASSERT_NE(graph, nullptr);
    ASSERT_TRUE(cb->Update().ok());
    ASSERT_TRUE(cb->UpdateLaunch(*launch, dims_, *kernel_,
                                 Args(1, x.cref(), dy_.cref(), kN))
                    .ok());
    ASSERT_TRUE(cb->UpdateChild(*child, *graph).ok());
    graph.reset();  // The command buffer keeps its own copy.
    ASSERT_TRUE(cb->Finalize().ok());
    ASSERT_TRUE(cb->Submit(stream_.get()).ok());
    reinstantiations = cb->counters().reinstantiations - reinstantiations;
  };
  // Same shape.
  update({{dz_.cref(), 2}}, dx2);
  EXPECT_FLOAT_EQ(Download(dy_.cref())[3], 5);
  EXPECT_FLOAT_EQ(Download(dz_.cref())[3], 2);
  // Another shape: re-instantiated, with this cycle's launch update.
  update({{dz_.cref(), 3}, {dv.cref(), 4}}, dx_);
  EXPECT_FLOAT_EQ(Download(dy_.cref())[3], x_[3]);
  EXPECT_FLOAT_EQ(Download(dz_.cref())[3], 3);
  EXPECT_FLOAT_EQ(Download(dv.cref())[3], 4);
  EXPECT_EQ(reinstantiations, 1);
  // An in-place launch update, then a refused child update in a later
  // cycle: the re-instantiation starts from the updated launch.
  ASSERT_TRUE(cb->Update().ok());
  ASSERT_TRUE(cb->UpdateLaunch(*launch, dims_, *kernel_,
                               Args(1, dx2.cref(), dy_.cref(), kN))
                  .ok());
  ASSERT_TRUE(cb->Finalize().ok());
  int64_t before = cb->counters().reinstantiations;
  auto graph = TraceFills({{dz_.cref(), 6}});
  ASSERT_NE(graph, nullptr);
  ASSERT_TRUE(cb->Update().ok());
  ASSERT_TRUE(cb->UpdateChild(*child, *graph).ok());
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_FLOAT_EQ(Download(dy_.cref())[3], 5);
  EXPECT_FLOAT_EQ(Download(dz_.cref())[3], 6);
  EXPECT_EQ(cb->counters().reinstantiations, before + 1);
  se::CommandBuffer::Counters c = cb->counters();
  EXPECT_EQ(std::make_tuple(c.nodes, c.instantiations, c.node_updates, c.submits),
            std::make_tuple(3, 1, 6, 4));
  EXPECT_NE(cb->ToDot().find("child (1 nodes)"), std::string::npos)
      << cb->ToDot();
}

// Record once, replay many times; each replay starts from the memset, so
// z == 4x every time. Then two in-place updates.
TEST_P(CommandBufferConformanceTest, CountersFollowRecordReplayAndUpdates) {
  auto dx2 = Filled(kN, 5);
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto zero = cb->CreateMemset(dy_.cref(), 0, kN * 4, {});
  ASSERT_TRUE(zero.ok()) << zero.status();
  auto first = cb->CreateLaunch(dims_, *kernel_,
                                Args(2, dx_.cref(), dy_.cref(), kN), {*zero});
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = cb->CreateLaunch(dims_, *kernel_,
                                 Args(2, dx_.cref(), dy_.cref(), kN), {*first});
  ASSERT_TRUE(second.ok());
  auto copy = cb->CreateMemcpyD2D(dz_.cref(), dy_.cref(), kN * 4, {*second});
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_EQ(Tie(cb->counters()), std::make_tuple(4, 0, 0, 0, 0));
  ASSERT_TRUE(cb->Finalize().ok());
  EXPECT_EQ(Tie(cb->counters()), std::make_tuple(4, 1, 0, 0, 0));
  for (int run = 0; run < 100; ++run) ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  std::vector<float> z = Download(dz_.cref());
  for (int i = 0; i < kN; ++i) ASSERT_FLOAT_EQ(z[i], 4 * x_[i]) << i;
  EXPECT_EQ(Tie(cb->counters()), std::make_tuple(4, 1, 0, 0, 100));

  // y = 1; y += 2x; y += 2 * 5.
  ASSERT_TRUE(cb->Update().ok());
  ASSERT_TRUE(cb->UpdateMemset(*zero, dy_.cref(), FloatBits(1), kN * 4).ok());
  ASSERT_TRUE(cb->UpdateLaunch(*second, dims_, *kernel_,
                               Args(2, dx2.cref(), dy_.cref(), kN))
                  .ok());
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  z = Download(dz_.cref());
  for (int i = 0; i < kN; ++i) ASSERT_FLOAT_EQ(z[i], 1 + 2 * x_[i] + 10) << i;
  EXPECT_EQ(Tie(cb->counters()), std::make_tuple(4, 1, 2, 0, 101));
  // A cycle without updates changes nothing.
  ASSERT_TRUE(cb->Update().ok());
  ASSERT_TRUE(cb->Finalize().ok());
  EXPECT_EQ(Tie(cb->counters()), std::make_tuple(4, 1, 2, 0, 101));
}

// A loop node checks its arguments and state before recording anything,
// and a platform without conditional nodes refuses it whole.
TEST_P(CommandBufferConformanceTest, WhileChecksBeforeItRecords) {
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto memset = cb->CreateMemset(dy_.cref(), 0, 64, {});
  ASSERT_TRUE(memset.ok());
  int conditions = 0, bodies = 0;
  auto condition = [&](CommandBuffer&) {
    ++conditions;
    return absl::OkStatus();
  };
  auto body = [&](CommandBuffer&) {
    ++bodies;
    return absl::OkStatus();
  };
  se::DeviceAddressBase pred = dw_.cref().GetByteSlice(0, 4);
  EXPECT_EQ(cb->CreateWhile(se::DeviceAddressBase(), 10, condition, body, {})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cb->CreateWhile(pred, 0, condition, body, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(conditions + bodies, 0);
  EXPECT_EQ(cb->num_commands(), 1);

  auto loop = cb->CreateWhile(pred, 10, condition, body, {*memset});
  if (!executor_->SupportsConditionalCommands()) {
    EXPECT_EQ(loop.status().code(), absl::StatusCode::kUnimplemented)
        << loop.status();
    EXPECT_EQ(cb->num_commands(), 1);
    return;
  }
  ASSERT_TRUE(loop.ok()) << loop.status();
  // The body once; the condition once per nested buffer that runs it (the
  // host runs one, CUDA one before the first trip and one after each).
  EXPECT_EQ(bodies, 1);
  const int condition_buffers = conditions;
  EXPECT_GE(condition_buffers, 1);
  EXPECT_EQ((*loop)->kind(), Command::Kind::kWhile);
  ASSERT_TRUE(cb->Finalize().ok());
  EXPECT_EQ(cb->CreateWhile(pred, 10, condition, body, {}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(cb->Update().ok());
  absl::Status wrong_kind = cb->UpdateWhile(*memset, pred, condition, body);
  EXPECT_EQ(wrong_kind.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(wrong_kind.message().find("is a memset"), std::string::npos)
      << wrong_kind;
  ASSERT_TRUE(cb->UpdateWhile(*loop, pred, condition, body).ok());
  EXPECT_EQ(bodies, 2) << "an update visits every nested buffer again";
  EXPECT_EQ(conditions, 2 * condition_buffers);
  ASSERT_TRUE(cb->Finalize().ok());
}

// A branch node checks its selector and branch count before recording.
TEST_P(CommandBufferConformanceTest, CaseChecksBeforeItRecords) {
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  int recorded = 0;
  auto count = [&](CommandBuffer&) {
    ++recorded;
    return absl::OkStatus();
  };
  const std::vector<CommandBuffer::NestedRecorder> two = {count, count};
  const std::vector<CommandBuffer::NestedRecorder> three = {count, count,
                                                            count};
  se::DeviceAddressBase pred = dw_.cref().GetByteSlice(0, 1);
  se::DeviceAddressBase index = dw_.cref().GetByteSlice(0, 4);
  for (const auto& [selector, branches, what] :
       std::vector<std::tuple<se::DeviceAddressBase,
                              std::vector<CommandBuffer::NestedRecorder>,
                              const char*>>{
           {se::DeviceAddressBase(), two, "null selector"},
           {dw_.cref().GetByteSlice(0, 2), two, "2-byte selector"},
           {pred, three, "pred with 3 branches"},
           {index, {}, "no branch"}}) {
    EXPECT_EQ(cb->CreateCase(selector, branches, {}).status().code(),
              absl::StatusCode::kInvalidArgument)
        << what;
  }
  EXPECT_EQ(recorded, 0);
  EXPECT_EQ(cb->num_commands(), 0);
  auto node = cb->CreateCase(index, three, {});
  if (!executor_->SupportsConditionalCommands()) {
    EXPECT_EQ(node.status().code(), absl::StatusCode::kUnimplemented);
    return;
  }
  ASSERT_TRUE(node.ok()) << node.status();
  EXPECT_EQ(recorded, 3);
  EXPECT_EQ((*node)->kind(), Command::Kind::kCase);
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Update().ok());
  EXPECT_EQ(cb->UpdateCase(*node, index, two).code(),
            absl::StatusCode::kInvalidArgument)
      << "an update keeps the branch count";
  ASSERT_TRUE(cb->UpdateCase(*node, index, three).ok());
  EXPECT_EQ(recorded, 6);
}

// A loop whose condition turns false at once runs the condition and never
// the body: the predicate is read after the condition, not before.
TEST_P(CommandBufferConformanceTest, WhileReadsThePredicateAfterTheCondition) {
  if (!executor_->SupportsConditionalCommands()) {
    GTEST_SKIP() << "no conditional nodes on this platform";
  }
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  se::DeviceAddressBase pred = dw_.cref().GetByteSlice(0, 4);
  ASSERT_TRUE(stream_->Memset32(&pred, 0x01010101, 4).ok());  // true
  auto loop = cb->CreateWhile(
      pred, 10,
      [&](CommandBuffer& condition) {  // pred = false
        return condition.CreateMemset(pred, 0, 4, {}).status();
      },
      [&](CommandBuffer& body) {  // y = 7
        return body.CreateMemset(dy_.cref(), FloatBits(7), kN * 4, {}).status();
      },
      {});
  ASSERT_TRUE(loop.ok()) << loop.status();
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  std::vector<float> y = Download(dy_.cref());
  EXPECT_EQ(y, std::vector<float>(kN, 0.0f));
  EXPECT_EQ(Download(dw_.cref())[0], 0.0f);
}

// A loop or branch whose recorder fails is not added and passes the
// recorder's error on. The command buffer then either records on,
// finalizes and runs (the host), or, where the failed node's conditional
// handles outlive it (CUDA), refuses Finalize with FAILED_PRECONDITION
// rather than fail inside the runtime.
TEST_P(CommandBufferConformanceTest, FailedNestedRecordingLeavesNoCommand) {
  if (!executor_->SupportsConditionalCommands()) {
    GTEST_SKIP() << "no conditional nodes on this platform";
  }
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  se::DeviceAddressBase pred = dw_.cref().GetByteSlice(0, 4);
  auto fine = [&](CommandBuffer& nested) {
    return nested.CreateMemset(dz_.cref(), FloatBits(3), kN * 4, {}).status();
  };
  auto broken = [](CommandBuffer&) {
    return absl::DataLossError("recorder failed");
  };
  EXPECT_EQ(cb->CreateWhile(pred, 10, fine, broken, {}).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(cb->CreateWhile(pred, 10, broken, fine, {}).status().code(),
            absl::StatusCode::kDataLoss);
  const std::vector<CommandBuffer::NestedRecorder> branches = {fine, broken};
  EXPECT_EQ(cb->CreateCase(pred.GetByteSlice(0, 1), branches, {})
                .status()
                .code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(cb->num_commands(), 0);
  ASSERT_TRUE(
      cb->CreateMemset(dy_.cref(), FloatBits(7), kN * 4, {}).status().ok());
  absl::Status finalized = cb->Finalize();
  if (!finalized.ok()) {
    EXPECT_EQ(finalized.code(), absl::StatusCode::kFailedPrecondition)
        << finalized;
    EXPECT_NE(finalized.message().find("discard"), std::string::npos)
        << finalized;
    return;
  }
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  EXPECT_EQ(Download(dy_.cref()), std::vector<float>(kN, 7.0f));
}

// Nodes by label, edges by dependency; labels follow updates.
TEST_P(CommandBufferConformanceTest, DotNamesNodesAndEdges) {
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto memset = cb->CreateMemset(dy_.cref(), 0, 64, {});
  ASSERT_TRUE(memset.ok());
  ASSERT_TRUE(cb->CreateBarrier({*memset}).ok());
  EXPECT_EQ(cb->ToDot(),
            "digraph command_buffer {\n"
            "  n0 [label=\"memset 64\"];\n"
            "  n1 [label=\"barrier\"];\n"
            "  n0 -> n1;\n"
            "}\n");
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Update().ok());
  ASSERT_TRUE(cb->UpdateMemset(*memset, dy_.cref(), 0, 128).ok());
  EXPECT_NE(cb->ToDot().find("memset 128"), std::string::npos) << cb->ToDot();
}

// Priorities are the recorder's to set: commands take the one set when
// they are created, the graph shows them bold, and high-priority kernels
// (a launch, and one in a traced child, where CUDA raises each kernel node)
// compute what normal ones do, through an update that rebuilds the child.
TEST_P(CommandBufferConformanceTest, HighPriorityCommandsRunAsOthersDo) {
  auto cb = NewCommandBuffer();
  ASSERT_NE(cb, nullptr);
  auto traced_launch = [&](float a) {
    auto graph = se::TraceIntoGraph(stream_.get(), [&](se::Stream* s) {
      return s->Launch(dims_, *kernel_, Args(a, dx_.cref(), dz_.cref(), kN));
    });
    EXPECT_TRUE(graph.ok()) << graph.status();
    return graph.ok() ? std::move(*graph) : nullptr;
  };
  auto zero = cb->CreateMemset(dy_.cref(), 0, kN * 4, {});
  auto zero_z = cb->CreateMemset(dz_.cref(), 0, kN * 4, {});
  ASSERT_TRUE(zero.ok() && zero_z.ok());
  cb->set_priority(Command::Priority::kHigh);
  auto launch = cb->CreateLaunch(dims_, *kernel_,
                                 Args(2, dx_.cref(), dy_.cref(), kN), {*zero});
  ASSERT_TRUE(launch.ok()) << launch.status();
  auto traced = traced_launch(3);
  ASSERT_NE(traced, nullptr);
  auto child = cb->CreateChild(*traced, {*zero_z});
  ASSERT_TRUE(child.ok()) << child.status();
  cb->set_priority(Command::Priority::kNormal);
  auto after = cb->CreateLaunch(dims_, *kernel_,
                                Args(1, dx_.cref(), dy_.cref(), kN), {*launch});
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ((*launch)->priority(), Command::Priority::kHigh);
  EXPECT_EQ((*child)->priority(), Command::Priority::kHigh);
  EXPECT_EQ((*after)->priority(), Command::Priority::kNormal);
  EXPECT_NE(cb->ToDot().find("n2 [label=\"launch"), std::string::npos);
  EXPECT_NE(cb->ToDot().find("\", style=bold];\n  n0 -> n2;"),
            std::string::npos)
      << cb->ToDot();
  // CUDA raises the two kHigh nodes; the host has no launch priorities.
  const int64_t raised = GetParam() == "cuda" ? 2 : 0;
  EXPECT_EQ(cb->counters().high_priority_nodes, raised);
  ASSERT_TRUE(cb->Finalize().ok());
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  std::vector<float> y = Download(dy_.cref()), z = Download(dz_.cref());
  for (int i = 0; i < kN; ++i) {
    ASSERT_FLOAT_EQ(y[i], 3 * x_[i]) << i;
    ASSERT_FLOAT_EQ(z[i], 3 * x_[i]) << i;
  }
  // A child of another shape (two kernels) is rebuilt, priority and all.
  ASSERT_TRUE(cb->Update().ok());
  auto twice = se::TraceIntoGraph(stream_.get(), [&](se::Stream* s) {
    for (int i = 0; i < 2; ++i) {
      absl::Status status =
          s->Launch(dims_, *kernel_, Args(1, dx_.cref(), dz_.cref(), kN));
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  });
  ASSERT_TRUE(twice.ok()) << twice.status();
  ASSERT_TRUE(cb->UpdateChild(*child, **twice).ok());
  ASSERT_TRUE(cb->Finalize().ok());
  EXPECT_EQ(cb->counters().high_priority_nodes, raised * 3 / 2);
  ASSERT_TRUE(cb->Submit(stream_.get()).ok());
  z = Download(dz_.cref());
  for (int i = 0; i < kN; ++i) ASSERT_FLOAT_EQ(z[i], 2 * x_[i]) << i;
}

INSTANTIATE_FOR_ALL_PLATFORMS(CommandBufferConformanceTest);

}  // namespace
}  // namespace xla_lite::testing
