#ifndef XLA_LITE_SERVICE_CONVOLUTION_DNN_CONVOLUTION_H_
#define XLA_LITE_SERVICE_CONVOLUTION_DNN_CONVOLUTION_H_

// A convolution as one call of the platform's DNN library (cuDNN), for the
// convolutions large enough to run faster there
// (xla_gpu_dnn_convolution_min_flops).

#include <cstdint>
#include <optional>

#include "stream_executor/dnn.h"
#include "xla_lite/service/convolution/windowed_config.h"

namespace xla_lite::gpu {

// 2 x the multiply-adds of `config`.
int64_t ConvolutionFlops(const ConvolutionConfig& config);

// `config` as a DNN library call over its lhs, rhs and output buffers, or
// nullopt when no call computes it. The call's addresses are null.
//
// A forward call takes the lhs as the input, the rhs as the filter and
// writes the output. A filter-gradient call (the form JAX's backward pass
// gives the gradient of a filter: a window as large as the activations, an
// output as small as the filter) takes the lhs as the input, the rhs as
// the output gradient and writes the filter gradient into the output; the
// library's batch is then the convolution's input feature dimension, its
// stride the window dilation and its dilation the stride. Each is tried
// in that order of fit (the filter-gradient form first when the window
// has more taps than the output positions).
//
// Neither takes lhs (base) dilation, batch groups, a window reversed along
// some spatial dimensions and not others (a reversed filter-gradient
// window at all), negative padding, or padding the library's symmetric
// padding cannot give (a high side shorter than the low one, beyond what
// the stride's rounding hides).
std::optional<se::dnn::ConvolutionCall> DnnConvolutionFor(
    const ConvolutionConfig& config);

// Which convolutions run in the DNN library: none when min_flops < 0 (no
// library, or not asked for), else those of at least min_flops that
// DnnConvolutionFor maps. The compiler decides once, and the fusion of
// epilogues (which the library call does not run) and the thunk emitter
// both follow the decision.
struct DnnConvolutionRule {
  int64_t min_flops = -1;
};
// The call for convolution `instr` under `rule`, or nullopt when it stays
// on the emitted kernels.
std::optional<se::dnn::ConvolutionCall> DnnConvolutionCallFor(
    const HloInstruction& instr, const DnnConvolutionRule& rule);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_CONVOLUTION_DNN_CONVOLUTION_H_
