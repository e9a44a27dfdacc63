// Each thunk on its own, on every platform, against plain C++ references.

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/runtime/runtime_test_base.h"
#include "tests/runtime/test_kernels.h"
#include "xla_lite/runtime/buffer_allocations.h"
#include "xla_lite/runtime/gemm_config.h"
#include "xla_lite/runtime/gemm_thunk.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/runtime/memcpy_thunk.h"
#include "xla_lite/runtime/memset_thunk.h"
#include "xla_lite/runtime/sequential_thunk.h"
#include "xla_lite/runtime/thunk_profiler.h"

namespace xla_lite::testing {
namespace {

using gpu::BufferAllocation;
using gpu::BufferAllocations;
using gpu::Thunk;

class ThunkTest : public RuntimeTest {
 protected:
  // Runs `thunk` once over `buffers` and waits for it.
  absl::Status Run(Thunk& thunk, const BufferAllocations& buffers,
                   gpu::ExecutionStats* stats = nullptr,
                   gpu::ThunkProfiler* profiler = nullptr) {
    absl::Status status = thunk.Initialize({executor_, stream_.get(), &options_});
    if (!status.ok()) return status;
    Thunk::ExecuteParams params;
    params.buffer_allocations = &buffers;
    params.stream = stream_.get();
    params.debug_options = &options_;
    params.stats = stats;
    params.profiler = profiler;
    status = thunk.ExecuteOnStream(params);
    if (!status.ok()) return status;
    return stream_->BlockHostUntilDone();
  }

  DebugOptions options_;
};

TEST_P(ThunkTest, KernelThunkPassesSliceAddresses) {
  const int64_t n = 300;
  std::mt19937 rng(1);
  std::vector<float> x = RandomFloats(n, rng), y = RandomFloats(n, rng);
  std::vector<float> packed = x;  // [x | y | out] in one allocation.
  packed.insert(packed.end(), y.begin(), y.end());
  packed.resize(3 * n, 0.0f);
  se::ScopedDeviceAddress mem = Upload(packed);
  BufferAllocation a = BufferAllocation::Temp(0, mem.cref().size());
  const int64_t bytes = n * sizeof(float);
  gpu::KernelThunk thunk("axpy", AxpyKernel(n, 3.0f), se::LaunchDimensionsFor(n),
                         {a.GetSlice(0, bytes), a.GetSlice(bytes, bytes),
                          a.GetSlice(2 * bytes, bytes)},
                         {false, false, true});
  BufferAllocations buffers({mem.cref()}, executor_->device_ordinal());
  XLA_LITE_ASSERT_OK(Run(thunk, buffers));
  std::vector<float> out = Download<float>(mem.cref());
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_FLOAT_EQ(out[2 * n + i], 3.0f * x[i] + y[i]) << i;
    EXPECT_EQ(out[i], x[i]) << "input overwritten at " << i;
  }
  EXPECT_EQ(thunk.buffer_uses()[2].access, gpu::BufferUse::Access::kWrite);
}

TEST_P(ThunkTest, KernelThunkNeedsInitializeOnEachExecutor) {
  se::ScopedDeviceAddress mem = Allocate(16 * sizeof(float));
  BufferAllocation a = BufferAllocation::Temp(0, mem.cref().size());
  gpu::KernelThunk thunk("axpy", AxpyKernel(16, 1.0f), se::LaunchDimensions(1, 16),
                         {a.GetSlice(), a.GetSlice(), a.GetSlice()},
                         {false, false, true});
  BufferAllocations buffers({mem.cref()}, executor_->device_ordinal());
  Thunk::ExecuteParams params;
  params.buffer_allocations = &buffers;
  params.stream = stream_.get();
  absl::Status status = thunk.ExecuteOnStream(params);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  XLA_LITE_ASSERT_OK(thunk.Initialize({executor_, stream_.get(), &options_}));
  XLA_LITE_ASSERT_OK(thunk.Initialize({executor_, stream_.get(), &options_}));
  XLA_LITE_ASSERT_OK(thunk.ExecuteOnStream(params));
  XLA_LITE_EXPECT_OK(stream_->BlockHostUntilDone());
}

struct GemmCase {
  int64_t batch, m, n, k;
  bool transpose_lhs, transpose_rhs;
  float alpha, beta;
};

// Row-major reference with f64 accumulation.
std::vector<float> ReferenceGemm(const GemmCase& g, const std::vector<float>& lhs,
                                 const std::vector<float>& rhs,
                                 std::vector<float> out) {
  for (int64_t b = 0; b < g.batch; ++b) {
    const float* l = lhs.data() + b * g.m * g.k;
    const float* r = rhs.data() + b * g.k * g.n;
    float* o = out.data() + b * g.m * g.n;
    for (int64_t i = 0; i < g.m; ++i) {
      for (int64_t j = 0; j < g.n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          float lv = g.transpose_lhs ? l[p * g.m + i] : l[i * g.k + p];
          float rv = g.transpose_rhs ? r[j * g.k + p] : r[p * g.n + j];
          acc += double{lv} * rv;
        }
        o[i * g.n + j] = g.alpha * acc + (g.beta == 0 ? 0.0 : g.beta * o[i * g.n + j]);
      }
    }
  }
  return out;
}

Shape MatrixShape(int64_t batch, int64_t rows, int64_t cols) {
  if (batch == 1) return Shape(PrimitiveType::F32, {rows, cols});
  return Shape(PrimitiveType::F32, {batch, rows, cols});
}

TEST_P(ThunkTest, GemmThunkMatchesRowMajorReference) {
  std::mt19937 rng(2);
  std::vector<GemmCase> cases = {
      {1, 17, 9, 33, false, false, 1.0f, 0.0f},
      {1, 8, 31, 5, true, false, 0.5f, 0.0f},
      {1, 64, 10, 128, false, true, 1.0f, 1.0f},
      {1, 3, 70, 40, true, true, -2.0f, 0.5f},
      {4, 12, 7, 9, false, false, 1.0f, 0.0f},
  };
  for (const GemmCase& g : cases) {
    Shape lhs = g.transpose_lhs ? MatrixShape(g.batch, g.k, g.m)
                                : MatrixShape(g.batch, g.m, g.k);
    Shape rhs = g.transpose_rhs ? MatrixShape(g.batch, g.n, g.k)
                                : MatrixShape(g.batch, g.k, g.n);
    Shape out = MatrixShape(g.batch, g.m, g.n);
    auto config = gpu::GemmConfig::For(lhs, g.transpose_lhs, rhs,
                                       g.transpose_rhs, out, g.alpha, g.beta);
    ASSERT_TRUE(config.ok()) << config.status();
    std::vector<float> l = RandomFloats(lhs.ElementCount(), rng),
                       r = RandomFloats(rhs.ElementCount(), rng),
                       o = RandomFloats(out.ElementCount(), rng);
    se::ScopedDeviceAddress dl = Upload(l), dr = Upload(r), dout = Upload(o);
    BufferAllocation al = BufferAllocation::Temp(0, lhs.ByteSize());
    BufferAllocation ar = BufferAllocation::Temp(1, rhs.ByteSize());
    BufferAllocation ao = BufferAllocation::Temp(2, out.ByteSize());
    gpu::GemmThunk thunk("gemm", *config, al.GetSlice(), ar.GetSlice(),
                         ao.GetSlice());
    BufferAllocations buffers({dl.cref(), dr.cref(), dout.cref()},
                              executor_->device_ordinal());
    XLA_LITE_ASSERT_OK(Run(thunk, buffers));
    std::vector<float> want = ReferenceGemm(g, l, r, o);
    std::vector<float> got = Download<float>(dout.cref());
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i])))
          << config->ToString() << " at " << i;
    }
  }
}

TEST(GemmConfigTest, RejectsMismatchedShapes) {
  Shape a(PrimitiveType::F32, {4, 8}), b(PrimitiveType::F32, {8, 3}),
      c(PrimitiveType::F32, {4, 3});
  EXPECT_TRUE(gpu::GemmConfig::For(a, false, b, false, c, 1, 0).ok());
  EXPECT_EQ(gpu::GemmConfig::For(a, true, b, false, c, 1, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(gpu::GemmConfig::For(a, false, b, false,
                                 Shape(PrimitiveType::F32, {3, 4}), 1, 0)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  Shape s(PrimitiveType::S32, {4, 8});
  EXPECT_FALSE(gpu::GemmConfig::For(s, false, Shape(PrimitiveType::S32, {8, 3}),
                                    false, Shape(PrimitiveType::S32, {4, 3}), 1, 0)
                   .ok());
}

TEST_P(ThunkTest, MemsetAndMemcpyThunksTouchOnlyTheirSlices) {
  const int64_t words = 64;
  se::ScopedDeviceAddress mem = Upload(std::vector<uint32_t>(words, 7));
  BufferAllocation a = BufferAllocation::Temp(0, words * 4);
  gpu::MemsetThunk fill("fill", a.GetSlice(0, 64), uint32_t{0xCAFEF00D});
  gpu::MemsetThunk bytes("bytes", a.GetSlice(64, 16), uint8_t{0xAB});
  gpu::MemcpyThunk copy("copy", a.GetSlice(0, 32), a.GetSlice(128, 32));
  BufferAllocations buffers({mem.cref()}, executor_->device_ordinal());
  XLA_LITE_ASSERT_OK(Run(fill, buffers));
  XLA_LITE_ASSERT_OK(Run(bytes, buffers));
  XLA_LITE_ASSERT_OK(Run(copy, buffers));
  std::vector<uint32_t> got = Download<uint32_t>(mem.cref());
  for (int64_t i = 0; i < words; ++i) {
    uint32_t want = 7;
    if (i < 16) want = 0xCAFEF00D;
    if (i >= 16 && i < 20) want = 0xABABABAB;
    if (i >= 32 && i < 40) want = 0xCAFEF00D;
    EXPECT_EQ(got[i], want) << "word " << i;
  }
}

TEST_P(ThunkTest, SequentialThunkRunsInOrderAndCountsLeafThunks) {
  const int64_t n = 128, bytes = n * sizeof(float);
  std::mt19937 rng(4);
  std::vector<float> x = RandomFloats(n, rng);
  se::ScopedDeviceAddress dx = Upload(x);
  se::ScopedDeviceAddress scratch = Allocate(2 * bytes);
  BufferAllocation ax = BufferAllocation::Temp(0, bytes);
  BufferAllocation as = BufferAllocation::Temp(1, 2 * bytes);
  // ones = 1.0f; out = 2 * x + ones, then copied over ones.
  gpu::ThunkSequence inner;
  inner.push_back(std::make_unique<gpu::MemsetThunk>(
      "ones", as.GetSlice(0, bytes), uint32_t{0x3F800000}));
  inner.push_back(std::make_unique<gpu::KernelThunk>(
      "axpy", AxpyKernel(n, 2.0f), se::LaunchDimensionsFor(n),
      std::vector<BufferAllocation::Slice>{ax.GetSlice(), as.GetSlice(0, bytes),
                                           as.GetSlice(bytes, bytes)},
      std::vector<bool>{false, false, true}));
  gpu::ThunkSequence outer;
  outer.push_back(std::make_unique<gpu::SequentialThunk>("inner", std::move(inner)));
  outer.push_back(std::make_unique<gpu::MemcpyThunk>(
      "copy", as.GetSlice(bytes, bytes), as.GetSlice(0, bytes)));
  gpu::SequentialThunk sequence("outer", std::move(outer));
  EXPECT_EQ(sequence.buffer_uses().size(), 6);

  BufferAllocations buffers({dx.cref(), scratch.cref()},
                            executor_->device_ordinal());
  gpu::ExecutionStats stats;
  XLA_LITE_ASSERT_OK(Run(sequence, buffers, &stats));
  EXPECT_EQ(stats.thunks_executed.load(), 3);
  std::vector<float> got = Download<float>(scratch.cref());
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_FLOAT_EQ(got[i], 2.0f * x[i] + 1.0f) << i;
    EXPECT_FLOAT_EQ(got[n + i], 2.0f * x[i] + 1.0f) << i;
  }
}

TEST_P(ThunkTest, SequentialThunkNamesTheFailingThunk) {
  se::KernelSpec gpu_only;  // Neither a host closure nor CUDA source.
  gpu_only.name = "nowhere";
  gpu_only.arity = 0;
  gpu::ThunkSequence thunks;
  thunks.push_back(std::make_unique<gpu::KernelThunk>(
      "unloadable", gpu_only, se::LaunchDimensions(1, 1),
      std::vector<BufferAllocation::Slice>{}, std::vector<bool>{}));
  gpu::SequentialThunk sequence("seq", std::move(thunks));
  absl::Status status =
      sequence.Initialize({executor_, stream_.get(), &options_});
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("unloadable"), std::string::npos) << status;
}

// Kernels compiled by several threads (each spec distinct, so on a GPU
// each is compiled) all load and run, each on its own slice.
TEST_P(ThunkTest, SequentialThunkCompilesKernelsOnSeveralThreads) {
  const int64_t n = 64, bytes = n * sizeof(float), kernels = 24;
  std::mt19937 rng(5);
  std::vector<float> x = RandomFloats(n, rng);
  se::ScopedDeviceAddress dx = Upload(x);
  se::ScopedDeviceAddress out = Allocate(kernels * bytes);
  BufferAllocation ax = BufferAllocation::Temp(0, bytes);
  BufferAllocation aout = BufferAllocation::Temp(1, kernels * bytes);
  gpu::ThunkSequence thunks;
  for (int64_t k = 0; k < kernels; ++k) {
    // out_k = (k + 1) * x + x.
    thunks.push_back(std::make_unique<gpu::KernelThunk>(
        absl::StrCat("axpy", k), AxpyKernel(n, static_cast<float>(k + 1)),
        se::LaunchDimensionsFor(n),
        std::vector<BufferAllocation::Slice>{ax.GetSlice(), ax.GetSlice(),
                                             aout.GetSlice(k * bytes, bytes)},
        std::vector<bool>{false, false, true}));
  }
  gpu::SequentialThunk sequence("seq", std::move(thunks));
  options_.set_xla_gpu_force_compilation_parallelism(8);
  BufferAllocations buffers({dx.cref(), out.cref()},
                            executor_->device_ordinal());
  XLA_LITE_ASSERT_OK(Run(sequence, buffers));
  std::vector<float> got = Download<float>(out.cref());
  for (int64_t k = 0; k < kernels; ++k) {
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_FLOAT_EQ(got[k * n + i], (k + 1) * x[i] + x[i]) << k << " " << i;
    }
  }
}

// With several compiling threads, the error is still the first unloadable
// kernel in sequence order, however the threads were timed.
TEST_P(ThunkTest, SequentialThunkNamesTheFirstUnloadableKernel) {
  se::KernelSpec broken;  // No host closure, and source NVRTC refuses.
  broken.name = "broken";
  broken.arity = 0;
  broken.cuda_source = "extern \"C\" __global__ void broken() { oops }";
  options_.set_xla_gpu_force_compilation_parallelism(4);
  for (int trial = 0; trial < 20; ++trial) {
    gpu::ThunkSequence thunks;
    for (int64_t k = 0; k < 12; ++k) {
      const bool bad = k == 5 || k == 9 || k == 11;
      thunks.push_back(std::make_unique<gpu::KernelThunk>(
          absl::StrCat(bad ? "unloadable" : "axpy", k),
          bad ? broken : AxpyKernel(16, 1.0f), se::LaunchDimensionsFor(16),
          std::vector<BufferAllocation::Slice>(bad ? 0 : 3),
          std::vector<bool>(bad ? 0 : 3)));
    }
    gpu::SequentialThunk sequence("seq", std::move(thunks));
    absl::Status status =
        sequence.Initialize({executor_, stream_.get(), &options_});
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("unloadable5"), std::string::npos)
        << status;
  }
}

// The profiler measures each leaf thunk, inside nested sequences too, by
// running it `repeats` times: an in-place accumulation shows the repeats.
TEST_P(ThunkTest, ProfilerRepeatsAndMeasuresEachLeafThunk) {
  const int64_t n = 64, bytes = n * sizeof(float);
  std::vector<float> ones(n, 1.0f);
  se::ScopedDeviceAddress dx = Upload(ones);
  se::ScopedDeviceAddress dy = Allocate(bytes);
  BufferAllocation ax = BufferAllocation::Temp(0, bytes);
  BufferAllocation ay = BufferAllocation::Temp(1, bytes);
  gpu::ThunkSequence inner;
  inner.push_back(std::make_unique<gpu::KernelThunk>(
      "accumulate", AxpyKernel(n, 2.0f), se::LaunchDimensionsFor(n),
      std::vector<BufferAllocation::Slice>{ax.GetSlice(), ay.GetSlice(),
                                           ay.GetSlice()},
      std::vector<bool>{false, false, true}));
  gpu::ThunkSequence outer;
  outer.push_back(std::make_unique<gpu::MemsetThunk>("zero", ay.GetSlice(),
                                                     uint32_t{0}));
  outer.push_back(
      std::make_unique<gpu::SequentialThunk>("inner", std::move(inner)));
  gpu::SequentialThunk sequence("outer", std::move(outer));
  BufferAllocations buffers({dx.cref(), dy.cref()},
                            executor_->device_ordinal());

  gpu::ThunkProfiler profiler(/*repeats=*/3);
  XLA_LITE_ASSERT_OK(Run(sequence, buffers, nullptr, &profiler));
  for (float y : Download<float>(dy.cref())) ASSERT_FLOAT_EQ(y, 6.0f);
  XLA_LITE_ASSERT_OK(Run(sequence, buffers, nullptr, &profiler));

  std::vector<gpu::ThunkProfiler::Entry> entries = profiler.Entries();
  ASSERT_EQ(entries.size(), 2);  // The leaves, not the sequences.
  for (const auto& entry : entries) {
    EXPECT_TRUE(entry.name == "zero" || entry.name == "accumulate")
        << entry.name;
    EXPECT_EQ(entry.executions, 2) << entry.name;
    EXPECT_GT(entry.total_us, 0) << entry.name;
  }
  EXPECT_GE(entries[0].total_us, entries[1].total_us);
  std::string report = profiler.Report(/*limit=*/1);
  EXPECT_NE(report.find("2 thunks"), std::string::npos) << report;
  EXPECT_NE(report.find(entries[0].name), std::string::npos) << report;
  EXPECT_EQ(report.find(entries[1].name), std::string::npos) << report;
  EXPECT_NE(report.find("kernel"), std::string::npos) << report;
  EXPECT_NE(report.find("memset"), std::string::npos) << report;
}

TEST_P(ThunkTest, ProfilerFindsTheLongestChainOfDependentThunks) {
  const int64_t n = 1 << 12;
  const int64_t bytes = n * sizeof(float);
  se::ScopedDeviceAddress da = Allocate(bytes), db = Allocate(bytes),
                          dc = Allocate(bytes);
  BufferAllocation a = BufferAllocation::Temp(0, bytes);
  BufferAllocation b = BufferAllocation::Temp(1, bytes);
  BufferAllocation c = BufferAllocation::Temp(2, bytes);
  auto axpy = [&](const char* name, const BufferAllocation& x,
                  const BufferAllocation& y, const BufferAllocation& out) {
    return std::make_unique<gpu::KernelThunk>(
        name, AxpyKernel(n, 1.0f), se::LaunchDimensionsFor(n),
        std::vector<BufferAllocation::Slice>{x.GetSlice(), y.GetSlice(),
                                             out.GetSlice()},
        std::vector<bool>{false, false, true});
  };
  // "left" and "right" write different buffers: neither waits for the
  // other. "join" reads both.
  gpu::ThunkSequence thunks;
  thunks.push_back(std::make_unique<gpu::MemsetThunk>("left", a.GetSlice(),
                                                      uint32_t{0}));
  thunks.push_back(std::make_unique<gpu::MemsetThunk>("right", b.GetSlice(),
                                                      uint32_t{0}));
  thunks.push_back(axpy("join", a, b, c));
  gpu::SequentialThunk sequence("step", std::move(thunks));
  BufferAllocations buffers({da.cref(), db.cref(), dc.cref()},
                            executor_->device_ordinal());

  gpu::ThunkProfiler profiler(/*repeats=*/2);
  XLA_LITE_ASSERT_OK(Run(sequence, buffers, nullptr, &profiler));
  gpu::ThunkProfiler::CriticalPath path = profiler.FindCriticalPath();
  std::vector<gpu::ThunkProfiler::Entry> entries = profiler.Entries();
  ASSERT_EQ(entries.size(), 3);
  auto time_of = [&](const std::string& name) {
    for (const auto& e : entries) {
      if (e.name == name) return e.total_us;
    }
    ADD_FAILURE() << "no entry " << name;
    return 0.0;
  };
  ASSERT_EQ(path.entries.size(), 2);
  const std::string& first = path.entries[0].name;
  EXPECT_TRUE(first == "left" || first == "right") << first;
  EXPECT_EQ(time_of(first), std::max(time_of("left"), time_of("right")));
  EXPECT_EQ(path.entries[1].name, "join");
  EXPECT_DOUBLE_EQ(path.us, time_of(first) + time_of("join"));
  EXPECT_DOUBLE_EQ(path.serial_us,
                   time_of("left") + time_of("right") + time_of("join"));
  EXPECT_LT(path.us, path.serial_us);
  std::string report = profiler.Report(/*limit=*/3);
  EXPECT_NE(report.find("critical path"), std::string::npos) << report;
  EXPECT_NE(report.find("over 2 thunks"), std::string::npos) << report;
}

INSTANTIATE_FOR_ALL_PLATFORMS(ThunkTest);

}  // namespace
}  // namespace xla_lite::testing
