#pragma once
// Argument checks shared by the ops; messages name the op and every shape/dtype involved.
#include <string>

#include "autograd/tensor.h"

namespace ablate::kernels {

inline void require_same_dtype(DType a, DType b, const char* op) {
  if (a != b)
    throw std::invalid_argument(std::string(op) + ": dtypes differ (" + dtype_name(a) + " and " +
                                dtype_name(b) + ")");
}

inline void require_dtype(const Tensor& t, DType want, const char* op, const char* what) {
  if (t.dtype() != want)
    throw std::invalid_argument(std::string(op) + ": " + what + " must have dtype " +
                                dtype_name(want) + ", got " + dtype_name(t.dtype()));
}

}  // namespace ablate::kernels
