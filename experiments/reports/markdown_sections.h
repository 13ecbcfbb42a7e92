#pragma once
// The sections of a summary.md that a rebuilt one lacks: what a record derived from
// results.csv cannot recompute (run_record.h), kept verbatim rather than lost.
#include <string>

namespace ablate::experiments {

// Every section of `original` (a heading of level 2 or deeper, with what follows it up
// to the next heading of its level or higher; headings inside ``` fences do not count)
// whose heading line `rebuilt` does not have, in order, each one heading level deeper
// under "## Not rebuilt: from the original report". "" when none is missing. A section
// inside one already kept is not repeated.
std::string sections_missing_from(const std::string& original, const std::string& rebuilt);

}  // namespace ablate::experiments
