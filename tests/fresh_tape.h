#pragma once
// A private tape for one test: ops recorded inside the test go to it, and it dies with
// the test, so tests never see each other's nodes.
#include "autograd/tape.h"

namespace ablate_tests {

struct FreshTape {
  ablate::Tape tape;
  ablate::TapeScope scope{tape};
};

}  // namespace ablate_tests
