#ifndef XLA_LITE_HLO_HLO_COMPUTATION_H_
#define XLA_LITE_HLO_HLO_COMPUTATION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_instruction.h"

namespace xla_lite {

class HloModule;

// A named list of instructions with parameters and one root. Owns its
// instructions.
class HloComputation {
 public:
  explicit HloComputation(std::string name);
  HloComputation(const HloComputation&) = delete;
  HloComputation& operator=(const HloComputation&) = delete;

  const std::string& name() const { return name_; }
  HloModule* parent() const { return parent_; }

  // Takes ownership; a kParameter is also registered under its
  // parameter_number. Returns the instruction.
  HloInstruction* AddInstruction(std::unique_ptr<HloInstruction> instruction);
  // FAILED_PRECONDITION when it still has users or is the root.
  absl::Status RemoveInstruction(HloInstruction* instruction);
  // Removes instructions no root path reaches (parameters stay).
  void RemoveDeadInstructions();

  HloInstruction* root_instruction() const { return root_; }
  void set_root_instruction(HloInstruction* root) { root_ = root; }

  // By parameter_number; null where none was added.
  const std::vector<HloInstruction*>& parameter_instructions() const {
    return parameters_;
  }
  HloInstruction* parameter_instruction(int64_t i) const {
    return parameters_.at(i);
  }
  int64_t num_parameters() const { return parameters_.size(); }

  // In insertion order (the text's order for parsed modules).
  std::vector<HloInstruction*> instructions() const;
  int64_t instruction_count() const { return instructions_.size(); }
  // Operands before users, each instruction once, ending with the root;
  // only what the root reaches, plus parameters.
  std::vector<HloInstruction*> MakeInstructionPostOrder() const;

  std::string ToString() const;

 private:
  friend class HloModule;

  std::string name_;
  HloModule* parent_ = nullptr;
  std::vector<std::unique_ptr<HloInstruction>> instructions_;
  std::vector<HloInstruction*> parameters_;
  HloInstruction* root_ = nullptr;
};

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_COMPUTATION_H_
