#ifndef STREAM_EXECUTOR_CUDA_CUBLAS_INCLUDES_H_
#define STREAM_EXECUTOR_CUDA_CUBLAS_INCLUDES_H_

// cublas_api.h includes cuda_fp16.h and cuda_bf16.h, which in turn need
// toolkit files (*.hpp, nv/target) that @local_config_cuda//:cuda_headers does
// not export. cuBLAS's prototypes use __half and __nv_bfloat16 only through
// pointers, so declarations stand in for both headers. Once the cuda_headers
// glob covers "include/*.hpp" and "include/nv/**", this file can include
// cublas_v2.h directly.
#if !defined(__CUDA_FP16_H__) && !defined(__CUDA_BF16_H__)
#define __CUDA_FP16_H__
#define __CUDA_BF16_H__
struct __half;
struct __nv_bfloat16;
#include "cublas_v2.h"
#include "cublasLt.h"
#undef __CUDA_FP16_H__
#undef __CUDA_BF16_H__
#else
#include "cublas_v2.h"
#include "cublasLt.h"
#endif

#endif  // STREAM_EXECUTOR_CUDA_CUBLAS_INCLUDES_H_
