#include "experiments/records/code_version.h"

#include "ablate_code_version.h"  // generated at every build (CMakeLists.txt)

namespace ablate::experiments {

const char* code_version() {
  return ABLATE_CODE_VERSION;
}

}  // namespace ablate::experiments
