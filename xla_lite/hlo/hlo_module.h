#ifndef XLA_LITE_HLO_HLO_MODULE_H_
#define XLA_LITE_HLO_HLO_MODULE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/shape.h"

namespace xla_lite {

// input_output_alias={ {output_index}: (parameter_number, {parameter_index},
// may-alias|must-alias) }. Indices are tuple paths ({} is the whole value).
struct HloInputOutputAlias {
  std::vector<int64_t> output_index;
  int64_t parameter_number = 0;
  std::vector<int64_t> parameter_index;
  bool must_alias = false;
};

// entry_computation_layout={(param shapes...)->result shape}, layouts
// included. Entry parameters and results keep these layouts.
struct ComputationLayout {
  std::vector<Shape> parameter_shapes;
  Shape result_shape;
};

// The layout of `computation` seen as an entry: its parameters' shapes by
// number (a missing parameter gives f32[]) and its root's shape. The
// parser uses it when the header has no entry_computation_layout.
ComputationLayout ComputationLayoutOf(const HloComputation& computation);

// A module: computations, one of them the entry. Owns its computations;
// computations reference each other through to_apply.
class HloModule {
 public:
  explicit HloModule(std::string name);
  HloModule(const HloModule&) = delete;
  HloModule& operator=(const HloModule&) = delete;

  const std::string& name() const { return name_; }
  // Where the text came from (a path, or the parser's source name); errors
  // found after parsing cite it with the instruction's line.
  const std::string& source_name() const { return source_name_; }
  void set_source_name(std::string name) { source_name_ = std::move(name); }

  HloComputation* AddComputation(std::unique_ptr<HloComputation> computation);
  // Also sets entry_computation_layout to ComputationLayoutOf(computation)
  // when the computation already has a root and no layout was set.
  HloComputation* AddEntryComputation(
      std::unique_ptr<HloComputation> computation);
  HloComputation* entry_computation() const { return entry_; }
  // Null when none has that name.
  HloComputation* GetComputation(const std::string& name) const;
  // In insertion order.
  std::vector<HloComputation*> computations() const;
  // Removes computations no instruction of the entry (transitively) calls.
  void RemoveUnusedComputations();

  const std::vector<HloInputOutputAlias>& input_output_aliases() const {
    return aliases_;
  }
  // buffer_donor={ (p, {}), ... }: entry parameters the caller donates
  // without naming the result that may reuse them.
  const std::vector<int64_t>& buffer_donors() const { return donors_; }
  void set_buffer_donors(std::vector<int64_t> donors) {
    donors_ = std::move(donors);
  }
  void set_input_output_aliases(std::vector<HloInputOutputAlias> aliases) {
    aliases_ = std::move(aliases);
  }
  // Set by the parser from the module header, or derived from the entry
  // computation's parameters and root when the header has none.
  const ComputationLayout& entry_computation_layout() const { return layout_; }
  void set_entry_computation_layout(ComputationLayout layout) {
    layout_ = std::move(layout);
  }

  // Text the parser reads back.
  std::string ToString() const;

 private:
  std::string name_;
  std::string source_name_;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  HloComputation* entry_ = nullptr;
  std::vector<HloInputOutputAlias> aliases_;
  std::vector<int64_t> donors_;
  ComputationLayout layout_;
};

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_MODULE_H_
