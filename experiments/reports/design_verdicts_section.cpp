#include "experiments/reports/design_verdicts_section.h"

#include <sstream>

#include "experiments/reports/html_text.h"

namespace ablate::experiments {

namespace {

// Markdown table cells hold no '|' or newline of their own.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text)
    out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

}  // namespace

std::string design_verdicts_intro(const DesignVerdicts& d) {
  const std::size_t m = d.questions.size();
  std::ostringstream t;
  t << "This run spent its seeds adaptively ([sweep.adaptive]): a first block of " << d.first_block
    << " seeds a point, then " << d.block
    << " more a round to every point whose question was still open, up to " << d.budget << ". ";
  if (!d.fallback.empty())
    t << "The file's group-sequential design was set aside: " << d.fallback << ". ";
  if (d.group_sequential)
    t << "After each round every question was asked of a group-sequential t-test at the looks "
         "planned before the data, and these are the run's verdicts. Each interval is the "
         "repeated confidence interval of the difference point − baseline at the level stated: "
         "it holds at every look at once, so it keeps its coverage after a stop the data chose; "
         "α = 0.05 is shared over the "
      << m << " question" << (m == 1 ? "" : "s")
      << " by the graphical procedure (a decided question's level passes to the others).";
  else
    t << "After each round every question was asked of an anytime-valid confidence sequence "
         "for the paired difference, and these are the run's verdicts. Each interval is that "
         "sequence for the difference point − baseline, at the level stated: it holds at every "
         "round at once, with α = 0.05 shared by Bonferroni over the "
      << m << " question" << (m == 1 ? "" : "s") << " and each question's points.";
  t << " Status: " << d.status
    << ". The fixed-n p-values, intervals and verdicts of the tables below assume a number of "
       "seeds fixed in advance, which the rounds were not: they are for reference only.";
  return t.str();
}

std::string design_verdicts_markdown(const DesignVerdicts& d) {
  std::ostringstream md;
  md << "## Verdicts of the adaptive design\n\n"
     << design_verdicts_intro(d)
     << " How the design works and what it spent: \"Adaptive design\", below.\n\n"
        "| question | point vs baseline | metric | design verdict | decided in round | "
        "seeds (pairs) | difference: sequential interval | level (at every round) |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (const DesignQuestion& q : d.questions) {
    std::string points, seeds, intervals;
    for (const DesignPart& p : q.parts) {
      const std::string br = points.empty() ? "" : "<br>";
      points += br + cell(p.point) + " vs " + cell(p.baseline) +
                (q.parts.size() > 1 ? " (" + p.verdict + ")" : "");
      seeds += br + std::to_string(p.seeds) + " (" + std::to_string(p.pairs) + ")";
      intervals += br + p.interval;
    }
    md << "| " << cell(q.question) << " | " << points << " | " << q.metric << " | **" << q.verdict
       << "** | " << (q.decided_round >= 0 ? std::to_string(q.decided_round) : "—") << " | "
       << seeds << " | " << intervals << " | " << level_text(q.level) << " |\n";
  }
  return md.str();
}

std::string design_verdicts_html(const DesignVerdicts& d) {
  std::ostringstream h;
  h << "<section id=\"verdicts\">\n<h2>Verdicts of the adaptive design</h2>\n<p>"
    << escape_html(design_verdicts_intro(d))
    << "</p>\n<div class=\"scroll\"><table id=\"design-verdicts-table\">\n<thead><tr>";
  for (const char* c :
       {"question", "point vs baseline", "metric", "design verdict", "decided in round",
        "seeds (pairs)", "difference: sequential interval", "level (at every round)"})
    h << "<th>" << c << "</th>";
  h << "</tr></thead>\n<tbody>\n";
  for (std::size_t r = 0; r < d.questions.size(); ++r) {
    const DesignQuestion& q = d.questions[r];
    std::string points, seeds, intervals;
    for (const DesignPart& p : q.parts) {
      const std::string br = points.empty() ? "" : "<br>";
      points += br + escape_html(p.point + " vs " + p.baseline +
                                 (q.parts.size() > 1 ? " (" + p.verdict + ")" : ""));
      seeds += br + std::to_string(p.seeds) + " (" + std::to_string(p.pairs) + ")";
      intervals += br + escape_html(p.interval);
    }
    h << "<tr data-row=\"" << r << "\"><td data-col=\"question\">" << escape_html(q.question)
      << "</td><td data-col=\"points\">" << points << "</td><td data-col=\"metric\">"
      << escape_html(q.metric) << "</td><td data-col=\"design_verdict\" class=\"design-verdict "
      << "verdict-" << escape_html(verdict_word(q.verdict)) << "\">" << escape_html(q.verdict)
      << "</td><td data-col=\"decided_round\">"
      << (q.decided_round >= 0 ? std::to_string(q.decided_round) : "—")
      << "</td><td data-col=\"seeds\">" << seeds << "</td><td data-col=\"interval\">" << intervals
      << "</td><td data-col=\"level\">" << level_text(q.level) << "</td></tr>\n";
  }
  h << "</tbody></table></div>\n</section>\n";
  return h.str();
}

}  // namespace ablate::experiments
