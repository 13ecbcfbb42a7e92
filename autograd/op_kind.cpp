#include "autograd/op_kind.h"

namespace ablate {

namespace {
#define ABLATE_X(name, differentiable) #name,
constexpr const char* kNames[] = {ABLATE_OP_KINDS(ABLATE_X)};
#undef ABLATE_X
#define ABLATE_X(name, differentiable) differentiable,
constexpr bool kDifferentiable[] = {ABLATE_OP_KINDS(ABLATE_X)};
#undef ABLATE_X
}  // namespace

const char* op_name(OpKind kind) {
  return kNames[std::size_t(kind)];
}
bool op_is_differentiable(OpKind kind) {
  return kDifferentiable[std::size_t(kind)];
}

}  // namespace ablate
