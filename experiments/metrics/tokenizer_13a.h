#pragma once
// sacreBLEU's default BLEU tokenizer, `13a` (mteval-v13a.pl's tokenization), ported
// from sacrebleu/tokenizers/tokenizer_13a.py and tokenizer_re.py (2.x):
//   1. remove "<skipped>", join "-\n" (delete it), turn remaining "\n" into " ";
//   2. unescape, in this order, &quot; → "  &amp; → &  &lt; → <  &gt; → >
//      (sequential whole-string replaces, so "&amp;lt;" becomes "<", as in Python);
//   3. pad with one space on each side, then apply four regex substitutions, each
//      over the whole line, left to right and non-overlapping like Python's re.sub:
//        ([\{-\~\[-\` -\&\(-\+\:-\@\/])  →  " \1 "   (punctuation and symbols)
//        ([^0-9])([\.,])                 →  "\1 \2 " (period/comma not after a digit)
//        ([\.,])([^0-9])                 →  " \1 \2" (period/comma not before a digit)
//        ([0-9])(-)                      →  "\1 \2 " (dash after a digit)
//   4. split on whitespace and join with single spaces.
// The BLEU metric first strips trailing whitespace (BLEU._preprocess_segment calls
// the tokenizer on `sent.rstrip()`); tokenize_13a does not, so it can be tested alone.
#include <string>
#include <string_view>

namespace ablate::experiments::metrics {

std::string tokenize_13a(std::string_view line);

}  // namespace ablate::experiments::metrics
