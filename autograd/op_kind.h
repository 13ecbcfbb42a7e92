#pragma once
// The one list of every node kind the tape can record. Each differentiable op tags
// its node with its kind; the f64 gradcheck suite (tests/autograd/gradcheck_table_test.cpp)
// fails unless every differentiable kind below was exercised by a gradcheck, so an op
// added here cannot go untested. `custom` tags ops written outside the library (see
// op_builder.h); their authors gradcheck them with the public gradcheck().
#include <array>
#include <cstdint>

namespace ablate {

// X(name, differentiable)
#define ABLATE_OP_KINDS(X) \
  X(leaf, false)           \
  X(constant, false)       \
  X(detach, false)         \
  X(custom, false)         \
  X(add, true)             \
  X(sub, true)             \
  X(mul, true)             \
  X(div, true)             \
  X(neg, true)             \
  X(add_scalar, true)      \
  X(mul_scalar, true)      \
  X(pow_scalar, true)      \
  X(exp, true)             \
  X(log, true)             \
  X(sqrt, true)            \
  X(abs, true)             \
  X(tanh, true)            \
  X(sigmoid, true)         \
  X(relu, true)            \
  X(gelu_erf, true)        \
  X(gelu_tanh, true)       \
  X(matmul, true)          \
  X(linear, true)          \
  X(linear_relu, true)     \
  X(attention, true)       \
  X(sum, true)             \
  X(mean, true)            \
  X(max, true)             \
  X(reshape, true)         \
  X(permute, true)         \
  X(concat, true)          \
  X(slice, true)           \
  X(gather_rows, true)     \
  X(softmax, true)         \
  X(log_softmax, true)     \
  X(cross_entropy, true)   \
  X(mse, true)             \
  X(dropout, true)         \
  X(layer_norm, true)      \
  X(batch_norm, true)      \
  X(masked_fill, true)     \
  X(where, true)           \
  X(l2_normalize, true)    \
  X(checkpoint, true)

enum class OpKind : std::uint8_t {
#define ABLATE_X(name, differentiable) name,
  ABLATE_OP_KINDS(ABLATE_X)
#undef ABLATE_X
};

constexpr std::size_t kOpKindCount = 0
#define ABLATE_X(name, differentiable) +1
    ABLATE_OP_KINDS(ABLATE_X)
#undef ABLATE_X
    ;

const char* op_name(OpKind kind);
bool op_is_differentiable(OpKind kind);

}  // namespace ablate
