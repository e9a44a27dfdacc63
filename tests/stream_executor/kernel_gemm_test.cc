// Kernels and BLAS gemm against plain C++ references on random data.

#include <cmath>
#include <random>
#include <vector>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "stream_executor/device_address_allocator.h"
#include "tests/platform_test_util.h"
#include "tests/stream_executor/test_kernels.h"

namespace xla_lite::testing {
namespace {

namespace se = ::stream_executor;
using se::blas::Transpose;

struct GemmCase;

class KernelGemmTest : public PlatformTest {
 protected:
  // Runs `g` through `blas` on random operands (bf16 ones, rounded before
  // the reference sees them, when `bf16_operands`) with an f32 C, and
  // checks C: every element against the reference, the padding between
  // its columns untouched. With `autotune_candidates` > 0 the shape is
  // prepared (autotuned) first, and a second run must give the same bits.
  void ExpectGemmMatchesReference(se::blas::BlasSupport* blas,
                                  se::Stream* stream, const GemmCase& g,
                                  bool bf16_operands, std::mt19937& rng,
                                  int autotune_candidates = 0);

  template <typename T>
  se::ScopedDeviceAddress Upload(const std::vector<T>& host) {
    se::StreamExecutorAllocator* alloc = allocator();
    auto mem = alloc->Allocate(executor_->device_ordinal(), host.size() * sizeof(T));
    EXPECT_TRUE(mem.ok()) << mem.status();
    EXPECT_TRUE(executor_
                    ->SynchronousMemcpyH2D(host.data(), host.size() * sizeof(T),
                                           mem->ptr())
                    .ok());
    return std::move(*mem);
  }
  template <typename T>
  std::vector<T> Download(const se::ScopedDeviceAddress& mem) {
    std::vector<T> host(mem.cref().size() / sizeof(T));
    EXPECT_TRUE(
        executor_->SynchronousMemcpyD2H(mem.cref(), mem.cref().size(), host.data())
            .ok());
    return host;
  }
  se::StreamExecutorAllocator* allocator() {
    if (!allocator_) allocator_ = std::make_unique<se::StreamExecutorAllocator>(executor_);
    return allocator_.get();
  }
  std::unique_ptr<se::StreamExecutorAllocator> allocator_;
};

TEST_P(KernelGemmTest, KernelComputesSaxpy) {
  const int n = 1000;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = dist(rng), y[i] = dist(rng);
  auto dx = Upload(x), dy = Upload(y);
  auto kernel = executor_->LoadKernel(AxpyKernel());
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  se::KernelArgs args;
  args.AddScalar(2.5f);
  args.AddAddress(dx.cref());
  args.AddAddress(dy.cref());
  args.AddScalar(n);
  auto stream = executor_->CreateStream();
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE((*stream)->Launch(se::LaunchDimensionsFor(n, 128), **kernel, args).ok());
  ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
  std::vector<float> out = Download<float>(dy);
  for (int i = 0; i < n; ++i) EXPECT_FLOAT_EQ(out[i], 2.5f * x[i] + y[i]) << i;
}

TEST_P(KernelGemmTest, LaunchWithWrongArityFails) {
  auto kernel = executor_->LoadKernel(AxpyKernel());
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto stream = executor_->CreateStream();
  ASSERT_TRUE(stream.ok());
  se::KernelArgs args;
  args.AddScalar(1.0f);
  EXPECT_EQ((*stream)->Launch(se::LaunchDimensions(1, 1), **kernel, args).code(),
            absl::StatusCode::kInvalidArgument);
}

struct GemmCase {
  Transpose ta, tb;
  int m, n, k, pad;  // pad: extra rows in each leading dimension.
  int batch;
  float alpha, beta;
};

// Column-major reference with f64 accumulation.
std::vector<float> ReferenceGemm(const GemmCase& g, const std::vector<float>& a,
                                 int lda, const std::vector<float>& b, int ldb,
                                 std::vector<float> c, int ldc) {
  bool ta = g.ta == Transpose::kTranspose, tb = g.tb == Transpose::kTranspose;
  int64_t sa = lda * (ta ? g.m : g.k), sb = ldb * (tb ? g.k : g.n), sc = ldc * g.n;
  for (int bt = 0; bt < g.batch; ++bt) {
    for (int i = 0; i < g.m; ++i) {
      for (int j = 0; j < g.n; ++j) {
        double acc = 0;
        for (int p = 0; p < g.k; ++p) {
          float av = ta ? a[bt * sa + i * lda + p] : a[bt * sa + p * lda + i];
          float bv = tb ? b[bt * sb + p * ldb + j] : b[bt * sb + j * ldb + p];
          acc += double{av} * bv;
        }
        float& cv = c[bt * sc + j * ldc + i];
        cv = g.alpha * acc + (g.beta == 0 ? 0.0 : g.beta * cv);
      }
    }
  }
  return c;
}

std::vector<float> RandomVector(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

void KernelGemmTest::ExpectGemmMatchesReference(se::blas::BlasSupport* blas,
                                                se::Stream* stream,
                                                const GemmCase& g,
                                                bool bf16_operands,
                                                std::mt19937& rng,
                                                int autotune_candidates) {
  bool ta = g.ta == Transpose::kTranspose, tb = g.tb == Transpose::kTranspose;
  int lda = (ta ? g.k : g.m) + g.pad, ldb = (tb ? g.n : g.k) + g.pad,
      ldc = g.m + g.pad;
  int64_t sa = lda * (ta ? g.m : g.k), sb = ldb * (tb ? g.k : g.n),
          sc = ldc * g.n;
  std::vector<float> a = RandomVector(sa * g.batch, rng),
                     b = RandomVector(sb * g.batch, rng),
                     c = RandomVector(sc * g.batch, rng);
  se::blas::GemmCall call;
  se::ScopedDeviceAddress da, db, dc = Upload(c);
  if (bf16_operands) {
    std::vector<Eigen::bfloat16> a16(a.begin(), a.end()), b16(b.begin(), b.end());
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(a16[i]);
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(b16[i]);
    da = Upload(a16), db = Upload(b16);
    call.type = se::blas::DataType::kBF16;
    call.c_type = se::blas::DataType::kF32;
  } else {
    da = Upload(a), db = Upload(b);
  }
  call.transa = g.ta, call.transb = g.tb;
  call.m = g.m, call.n = g.n, call.k = g.k;
  call.alpha = g.alpha, call.beta = g.beta;
  call.a = da.cref(), call.b = db.cref(), call.c = dc.cref();
  call.lda = lda, call.ldb = ldb, call.ldc = ldc;
  call.batch_count = g.batch;
  call.stride_a = sa, call.stride_b = sb, call.stride_c = sc;
  if (autotune_candidates > 0) {
    absl::Status prepared =
        blas->PrepareGemm(stream, call, autotune_candidates);
    ASSERT_TRUE(prepared.ok()) << prepared;
  }
  ASSERT_TRUE(blas->Gemm(stream, call).ok()) << call.ToString();
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  std::vector<float> want = ReferenceGemm(g, a, lda, b, ldb, c, ldc);
  std::vector<float> got = Download<float>(dc);
  if (autotune_candidates > 0) {
    se::DeviceAddressBase c_address = dc.cref();
    ASSERT_TRUE(executor_
                    ->SynchronousMemcpyH2D(c.data(), c.size() * sizeof(float),
                                           &c_address)
                    .ok());
    ASSERT_TRUE(blas->Gemm(stream, call).ok()) << call.ToString();
    ASSERT_TRUE(stream->BlockHostUntilDone().ok());
    EXPECT_EQ(Download<float>(dc), got)
        << call.ToString() << ": the chosen algorithm changed between calls";
  }
  for (int bt = 0; bt < g.batch; ++bt) {
    for (int j = 0; j < g.n; ++j) {
      for (int i = 0; i < ldc; ++i) {
        int64_t idx = bt * sc + j * ldc + i;
        if (i >= g.m) {
          EXPECT_EQ(got[idx], c[idx]) << call.ToString() << ": padding at " << idx;
          continue;
        }
        EXPECT_NEAR(got[idx], want[idx], 1e-4 * (1 + std::abs(want[idx])))
            << call.ToString() << " at batch " << bt << " (" << i << "," << j
            << ")";
      }
    }
  }
}

TEST_P(KernelGemmTest, GemmF32MatchesReference) {
  auto blas = executor_->AsBlas();
  if (!blas.ok()) {
    ASSERT_FALSE(PlatformRequired(GetParam())) << blas.status();
    GTEST_SKIP() << "no BLAS on " << GetParam() << ": " << blas.status();
  }
  std::mt19937 rng(3);
  std::vector<GemmCase> cases = {
      {Transpose::kNoTranspose, Transpose::kNoTranspose, 17, 9, 33, 0, 1, 1, 0},
      {Transpose::kTranspose, Transpose::kNoTranspose, 8, 31, 5, 3, 1, 0.5, 0},
      {Transpose::kNoTranspose, Transpose::kTranspose, 64, 10, 128, 0, 1, 1, 1},
      {Transpose::kTranspose, Transpose::kTranspose, 3, 70, 40, 1, 1, -2, 0.5},
      {Transpose::kNoTranspose, Transpose::kNoTranspose, 12, 7, 9, 2, 4, 1, 0},
  };
  auto stream = executor_->CreateStream();
  ASSERT_TRUE(stream.ok());
  for (const GemmCase& g : cases) {
    ExpectGemmMatchesReference(*blas, stream->get(), g, false, rng);
  }
}

// GemmCall::allow_tf32 rounds f32 operands to TF32 where the device has
// tensor cores for it (CUDA sm_80+) and nowhere else; the handle's math
// mode follows each call, so a full-precision call after a TF32 one is
// exact again.
TEST_P(KernelGemmTest, Tf32IsPerCall) {
  auto blas = executor_->AsBlas();
  if (!blas.ok()) {
    ASSERT_FALSE(PlatformRequired(GetParam())) << blas.status();
    GTEST_SKIP() << "no BLAS on " << GetParam() << ": " << blas.status();
  }
  const int m = 64, n = 64, k = 512;
  std::mt19937 rng(5);
  std::vector<float> a = RandomVector(m * k, rng), b = RandomVector(k * n, rng);
  se::ScopedDeviceAddress da = Upload(a), db = Upload(b),
                          dc = Upload(std::vector<float>(m * n, 0.0f));
  GemmCase g = {Transpose::kNoTranspose, Transpose::kNoTranspose, m, n, k,
                0, 1, 1, 0};
  std::vector<float> want =
      ReferenceGemm(g, a, m, b, k, std::vector<float>(m * n, 0.0f), m);
  auto stream = executor_->CreateStream();
  ASSERT_TRUE(stream.ok());
  // The largest error relative to the largest result.
  auto error = [&](bool allow_tf32) {
    se::blas::GemmCall call;
    call.m = m, call.n = n, call.k = k;
    call.a = da.cref(), call.b = db.cref(), call.c = dc.cref();
    call.lda = m, call.ldb = k, call.ldc = m;
    call.allow_tf32 = allow_tf32;
    EXPECT_TRUE((*blas)->Gemm(stream->get(), call).ok()) << call.ToString();
    EXPECT_TRUE((*stream)->BlockHostUntilDone().ok());
    std::vector<float> got = Download<float>(dc);
    double worst = 0, scale = 0;
    for (int i = 0; i < m * n; ++i) {
      worst = std::max(worst, std::abs(double{got[i]} - want[i]));
      scale = std::max(scale, std::abs(double{want[i]}));
    }
    return worst / scale;
  };
  double full = error(false), tf32 = error(true), full_again = error(false);
  const se::DeviceDescription& device = executor_->GetDeviceDescription();
  bool has_tf32 = GetParam() == "cuda" && device.compute_major >= 8;
  EXPECT_LT(full, 1e-5);
  EXPECT_LT(full_again, 1e-5) << "the math mode stayed TF32";
  if (has_tf32) {
    // TF32 keeps 10 mantissa bits: errors near 2^-11 per product.
    EXPECT_GT(tf32, 1e-5) << "TF32 was not used on " << device.arch;
    EXPECT_LT(tf32, 1e-2);
  } else {
    EXPECT_LT(tf32, 1e-5) << GetParam() << " has no TF32";
  }
}

TEST_P(KernelGemmTest, GemmBF16MatchesReference) {
  auto blas = executor_->AsBlas();
  if (!blas.ok()) GTEST_SKIP() << blas.status();
  const int m = 16, n = 24, k = 32;
  std::mt19937 rng(5);
  auto af = RandomVector(m * k, rng), bf = RandomVector(k * n, rng);
  std::vector<Eigen::bfloat16> a(af.begin(), af.end()), b(bf.begin(), bf.end()),
      c(m * n, Eigen::bfloat16(0));
  // The reference sees exactly the bf16-rounded inputs.
  for (int i = 0; i < m * k; ++i) af[i] = static_cast<float>(a[i]);
  for (int i = 0; i < k * n; ++i) bf[i] = static_cast<float>(b[i]);
  auto da = Upload(a), db = Upload(b), dc = Upload(c);
  se::blas::GemmCall call;
  call.type = se::blas::DataType::kBF16;
  call.m = m, call.n = n, call.k = k;
  call.a = da.cref(), call.b = db.cref(), call.c = dc.cref();
  call.lda = m, call.ldb = k, call.ldc = m;
  auto stream = executor_->CreateStream();
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE((*blas)->Gemm(stream->get(), call).ok());
  ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
  GemmCase g{Transpose::kNoTranspose, Transpose::kNoTranspose, m, n, k, 0, 1, 1, 0};
  std::vector<float> want =
      ReferenceGemm(g, af, m, bf, k, std::vector<float>(m * n), m);
  std::vector<Eigen::bfloat16> got = Download<Eigen::bfloat16>(dc);
  for (int i = 0; i < m * n; ++i) {
    EXPECT_NEAR(static_cast<float>(got[i]), want[i], 1e-2 * (1 + std::abs(want[i])))
        << i;
  }
}

// bf16 operands with an f32 C (tensor cores on GPUs): products of bf16
// values are exact in f32, so only the f32 sums round. Strided batches
// with padded leading dimensions and beta != 0, so C is read as f32 too.
TEST_P(KernelGemmTest, GemmBf16ToF32MatchesReference) {
  auto blas = executor_->AsBlas();
  if (!blas.ok()) {
    ASSERT_FALSE(PlatformRequired(GetParam())) << blas.status();
    GTEST_SKIP() << "no BLAS on " << GetParam() << ": " << blas.status();
  }
  std::mt19937 rng(9);
  const std::vector<GemmCase> cases = {
      {Transpose::kNoTranspose, Transpose::kNoTranspose, 16, 24, 32, 0, 1, 1, 0},
      {Transpose::kTranspose, Transpose::kNoTranspose, 9, 13, 40, 3, 3, 0.5, 1},
      {Transpose::kNoTranspose, Transpose::kTranspose, 33, 7, 17, 1, 2, -1, 0.25},
  };
  auto stream = executor_->CreateStream();
  ASSERT_TRUE(stream.ok());
  for (const GemmCase& g : cases) {
    ExpectGemmMatchesReference(*blas, stream->get(), g, true, rng);
  }
}

// Gemms whose shape was prepared with autotuning (the library times its
// candidate algorithms once and keeps the fastest) compute the same products,
// and the same bits on every call, as unprepared ones.
TEST_P(KernelGemmTest, AutotunedGemmsMatchReferenceAndRepeatExactly) {
  auto blas = executor_->AsBlas();
  if (!blas.ok()) {
    ASSERT_FALSE(PlatformRequired(GetParam())) << blas.status();
    GTEST_SKIP() << "no BLAS on " << GetParam() << ": " << blas.status();
  }
  std::mt19937 rng(11);
  const std::vector<GemmCase> f32_cases = {
      {Transpose::kNoTranspose, Transpose::kNoTranspose, 128, 256, 512, 0, 1,
       1, 0},
      {Transpose::kTranspose, Transpose::kNoTranspose, 64, 96, 1024, 0, 1, 1,
       0},
      {Transpose::kNoTranspose, Transpose::kTranspose, 32, 64, 128, 0, 4, 0.5,
       1},
      // Unaligned leading dimensions and strides take the classic path.
      {Transpose::kNoTranspose, Transpose::kNoTranspose, 13, 9, 33, 1, 3, 1,
       0},
  };
  const std::vector<GemmCase> bf16_cases = {
      {Transpose::kNoTranspose, Transpose::kTranspose, 64, 128, 256, 0, 2, 1,
       0},
      {Transpose::kTranspose, Transpose::kNoTranspose, 32, 32, 64, 0, 8, 1,
       0.5},
  };
  auto stream = executor_->CreateStream();
  ASSERT_TRUE(stream.ok());
  for (const GemmCase& g : f32_cases) {
    ExpectGemmMatchesReference(*blas, stream->get(), g, false, rng, 8);
  }
  for (const GemmCase& g : bf16_cases) {
    ExpectGemmMatchesReference(*blas, stream->get(), g, true, rng, 8);
  }
}

TEST_P(KernelGemmTest, PrepareGemmChecksTheCall) {
  auto blas = executor_->AsBlas();
  if (!blas.ok()) GTEST_SKIP() << blas.status();
  auto small = Upload(std::vector<float>(10));
  se::blas::GemmCall call;
  call.m = call.n = call.k = 8;
  call.a = call.b = call.c = small.cref();
  call.lda = call.ldb = call.ldc = 8;
  auto stream = executor_->CreateStream();
  ASSERT_TRUE(stream.ok());
  absl::Status status = (*blas)->PrepareGemm(stream->get(), call, 4);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("holds 40 bytes"), std::string::npos)
      << status;
}

TEST_P(KernelGemmTest, GemmRejectsF32OperandsWithBf16Output) {
  auto blas = executor_->AsBlas();
  if (!blas.ok()) GTEST_SKIP() << blas.status();
  auto buffer = Upload(std::vector<float>(64));
  se::blas::GemmCall call;
  call.c_type = se::blas::DataType::kBF16;
  call.m = call.n = call.k = 4;
  call.a = call.b = call.c = buffer.cref();
  call.lda = call.ldb = call.ldc = 4;
  auto stream = executor_->CreateStream();
  ASSERT_TRUE(stream.ok());
  absl::Status status = (*blas)->Gemm(stream->get(), call);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("f32 operands with a bf16 result"),
            std::string::npos)
      << status;
}

TEST_P(KernelGemmTest, GemmRejectsUndersizedBuffer) {
  auto blas = executor_->AsBlas();
  if (!blas.ok()) GTEST_SKIP() << blas.status();
  auto small = Upload(std::vector<float>(10));
  se::blas::GemmCall call;
  call.m = call.n = call.k = 8;
  call.a = call.b = call.c = small.cref();
  call.lda = call.ldb = call.ldc = 8;
  auto stream = executor_->CreateStream();
  ASSERT_TRUE(stream.ok());
  absl::Status status = (*blas)->Gemm(stream->get(), call);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("holds 40 bytes"), std::string::npos) << status;
}

INSTANTIATE_FOR_ALL_PLATFORMS(KernelGemmTest);

}  // namespace
}  // namespace xla_lite::testing
