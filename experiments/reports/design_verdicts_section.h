#pragma once
// The first section of an adaptive sweep's summary.md and report.html, written from one
// DesignVerdicts (analysis/design_verdicts.h), so both say the same.
#include <string>

#include "experiments/analysis/design_verdicts.h"

namespace ablate::experiments {

// The paragraph both reports open the section with (plain text).
std::string design_verdicts_intro(const DesignVerdicts& d);
// summary.md's first section: "## Verdicts of the adaptive design", its paragraph and table.
std::string design_verdicts_markdown(const DesignVerdicts& d);
// report.html's first section (id "verdicts"), its table #design-verdicts-table: a row
// per question, each cell marked with its column (data-col) for the browser test, the
// verdict bold and coloured by its word (class "design-verdict verdict-<word>").
std::string design_verdicts_html(const DesignVerdicts& d);

}  // namespace ablate::experiments
