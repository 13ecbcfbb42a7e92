#pragma once
// The version string compiled into the binary: git describe at configure time
// (records/code_version.cpp.in). Saved states, plugins and pre-registrations carry it.
namespace ablate::experiments {

const char* code_version();

}  // namespace ablate::experiments
