#pragma once
// Everything a user of the autograd layer needs.
#include "autograd/checkpoint.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "autograd/rng.h"
#include "autograd/tape.h"
#include "autograd/tensor.h"
