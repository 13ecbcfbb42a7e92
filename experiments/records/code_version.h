#pragma once
// The version string compiled into the binary: PROJECT_VERSION+`git describe`, with
// -dirty when the working tree differed from its commit at build time (the header
// ablate_code_version.h, generated at every build by cmake/gitState.cmake). Saved
// states, plugins and pre-registrations carry it; provenance.h records the rest.
namespace ablate::experiments {

const char* code_version();

}  // namespace ablate::experiments
