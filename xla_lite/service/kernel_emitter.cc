#include "xla_lite/service/kernel_emitter.h"

#include <cctype>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/service/cuda_emitter.h"
#include "xla_lite/service/gemm/gemm_host_kernel.h"
#include "xla_lite/service/gemm/gemm_kernel_source.h"
#include "xla_lite/service/gemm/gemm_tiling.h"
#include "xla_lite/service/host_kernel.h"

namespace xla_lite::gpu {
namespace {

// Adds `slice` as a parameter, or finds the parameter it already is.
int ParameterFor(const BufferAllocation::Slice& slice, PrimitiveType type,
                 bool written, KernelParameters& parameters,
                 std::vector<BufferAllocation::Slice>& arguments) {
  for (int p = 0; p < arguments.size(); ++p) {
    if (arguments[p] == slice) {
      parameters.written[p] = parameters.written[p] || written;
      return p;
    }
  }
  arguments.push_back(slice);
  parameters.types.push_back(type);
  parameters.written.push_back(written);
  return arguments.size() - 1;
}

// Maps `program`'s inputs and outputs onto `shared`'s parameters (adding
// the slices not there yet to `arguments`): the program's own input_param
// and output_param.
KernelParameters ProgramParameters(
    const KernelProgram& program,
    absl::Span<const BufferAllocation::Slice> inputs,
    absl::Span<const BufferAllocation::Slice> outputs, const std::string& name,
    KernelParameters& shared, std::vector<BufferAllocation::Slice>& arguments) {
  CHECK_EQ(inputs.size(), program.inputs().size()) << name;
  CHECK_EQ(outputs.size(), program.outputs().size()) << name;
  KernelParameters mapped;
  for (int i = 0; i < inputs.size(); ++i) {
    mapped.input_param.push_back(ParameterFor(
        inputs[i], program.inputs()[i].type, false, shared, arguments));
  }
  for (int k = 0; k < outputs.size(); ++k) {
    mapped.output_param.push_back(ParameterFor(
        outputs[k], program.outputs()[k].buffer.type, true, shared, arguments));
  }
  return mapped;
}

// The program's mapping with the kernel's parameter types and flags.
KernelParameters WithSharedTypes(KernelParameters mapped,
                                 const KernelParameters& shared) {
  mapped.types = shared.types;
  mapped.written = shared.written;
  return mapped;
}

}  // namespace

std::string KernelName(const std::string& text, int64_t unique_id) {
  std::string name = "xl_";
  for (char c : text) {
    name.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  }
  return absl::StrCat(name, "_", unique_id);
}

EmittedKernel EmitKernel(std::shared_ptr<const KernelProgram> program,
                         absl::Span<const BufferAllocation::Slice> inputs,
                         absl::Span<const BufferAllocation::Slice> outputs,
                         const std::string& name, int64_t multiprocessors) {
  KernelParameters shared;
  EmittedKernel kernel;
  KernelParameters parameters =
      WithSharedTypes(ProgramParameters(*program, inputs, outputs, name, shared,
                                        kernel.arguments),
                      shared);
  kernel.written = parameters.written;
  kernel.launch_dimensions = KernelLaunchDimensions(*program, multiprocessors);
  kernel.spec.name = name;
  kernel.spec.arity = parameters.count();
  kernel.spec.waits_for_producers = true;  // XL_AWAIT_PRODUCERS() first.
  kernel.spec.cuda_source =
      EmitCudaKernel(*program, parameters, name, multiprocessors);
  VLOG(5) << kernel.spec.cuda_source;
  kernel.spec.host_fn =
      MakeHostKernel(std::move(program), std::move(parameters));
  return kernel;
}

EmittedKernel EmitRowKernel(const std::vector<RowKernelPart>& parts,
                            int64_t rows, const std::string& name) {
  EmittedKernel kernel;
  KernelParameters shared;
  std::vector<RowKernelStage> stages;
  for (const RowKernelPart& part : parts) {
    RowKernelStage stage;
    stage.program = part.program;
    stage.row_length = part.row_length;
    stage.parameters =
        ProgramParameters(*part.program, part.inputs, part.outputs, name,
                          shared, kernel.arguments);
    stages.push_back(std::move(stage));
  }
  for (RowKernelStage& stage : stages) {
    stage.parameters = WithSharedTypes(std::move(stage.parameters), shared);
  }
  kernel.written = shared.written;
  kernel.launch_dimensions = RowKernelLaunchDimensions(stages, rows);
  kernel.spec.name = name;
  kernel.spec.arity = shared.count();
  kernel.spec.waits_for_producers = true;
  kernel.spec.cuda_source = EmitCudaRowKernel(stages, rows, name);
  VLOG(5) << kernel.spec.cuda_source;
  // Whole stages one after another compute what the rows do, since a stage
  // reads only what earlier stages stored for its own row.
  kernel.spec.host_fn = [stages = std::move(stages)](
                            const se::KernelArgs& args,
                            const se::LaunchDimensions&) -> absl::Status {
    for (const RowKernelStage& stage : stages) {
      RETURN_IF_ERROR(RunProgramOnHost(*stage.program, stage.parameters, args));
    }
    return absl::OkStatus();
  };
  return kernel;
}

EmittedKernel EmitProductWithEpilogue(
    const ProductKernel& product, std::shared_ptr<const KernelProgram> epilogue,
    absl::Span<const BufferAllocation::Slice> inputs,
    absl::Span<const BufferAllocation::Slice> outputs,
    const std::string& name) {
  CHECK_EQ(product.operands.size(), product.operand_names.size()) << name;
  KernelParameters shared;
  EmittedKernel kernel;
  // The operands are always the first parameters, even when slices repeat.
  for (const BufferAllocation::Slice& operand : product.operands) {
    kernel.arguments.push_back(operand);
    shared.types.push_back(PrimitiveType::F32);
    shared.written.push_back(false);
  }
  for (const BufferAllocation::Slice& output : outputs) {
    for (const BufferAllocation::Slice& operand : product.operands) {
      CHECK(!(output == operand))
          << name << ": an epilogue may not overwrite the product's operands";
    }
  }
  KernelParameters parameters =
      WithSharedTypes(ProgramParameters(*epilogue, inputs, outputs, name,
                                        shared, kernel.arguments),
                      shared);
  EpilogueSource source =
      EmitCudaEpilogue(*epilogue, parameters, product.operand_names,
                       absl::StrCat(name, "_epilogue"));
  kernel.written = parameters.written;
  kernel.launch_dimensions = product.launch_dimensions;
  kernel.spec.name = name;
  kernel.spec.arity = parameters.count();
  kernel.spec.waits_for_producers = true;  // XL_AWAIT_PRODUCERS() first.
  kernel.spec.cuda_source = product.source(source);
  VLOG(5) << kernel.spec.cuda_source;
  kernel.spec.host_fn =
      [host_product = product.host_product, operands = product.operands.size(),
       elements = product.product_elements, epilogue = std::move(epilogue),
       parameters](const se::KernelArgs& args,
                   const se::LaunchDimensions& dims) {
        std::vector<float> values(elements);
        se::KernelArgs product_args;
        for (size_t i = 0; i < operands; ++i) {
          product_args.AddAddress(args[i].address());
        }
        product_args.AddAddress(se::DeviceAddressBase(
            values.data(), values.size() * sizeof(float)));
        RETURN_IF_ERROR(host_product(product_args, dims));
        return RunProgramOnHost(*epilogue, parameters, args, values.data());
      };
  return kernel;
}

EmittedKernel EmitGemmWithEpilogue(
    const GemmConfig& config, std::shared_ptr<const KernelProgram> epilogue,
    const BufferAllocation::Slice& lhs, const BufferAllocation::Slice& rhs,
    absl::Span<const BufferAllocation::Slice> inputs,
    absl::Span<const BufferAllocation::Slice> outputs,
    const std::string& name) {
  const GemmTiling tiling = ChooseGemmTiling(config);
  ProductKernel product;
  product.operand_names = {"lhs", "rhs"};
  product.operands = {lhs, rhs};
  product.source = [config, tiling, name](const EpilogueSource& source) {
    return GemmKernelSource(config, tiling, name, &source);
  };
  product.host_product = GemmHostKernel(config);
  product.product_elements = config.batch * config.m * config.n;
  product.launch_dimensions = GemmLaunchDimensionsFor(config, tiling);
  return EmitProductWithEpilogue(product, std::move(epilogue), inputs, outputs,
                                 name);
}

}  // namespace xla_lite::gpu
