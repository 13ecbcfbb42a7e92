// Fuzz target: the g2p task's dictionary loader (word<TAB>PH ON EMES ||| ALT ... a
// line), read through the task factory as an experiment would: the shared text reader
// (UTF-8, NULs, BOM, size), the line checks, stress digits, the vocabularies.
//
// Bad input must be a std::runtime_error naming the file, with a bounded, printable
// message. Accepted input must give batches whose ids lie in the vocabularies and
// references for every held-out word.
#include <string>

#include "experiments/tasks/task.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/text_message.h"

using namespace ablate;
using namespace ablate::experiments;
using ablate::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  // The first byte picks stress; the rest is the dictionary, used as all three splits.
  const bool stress = data[0] & 1;
  const std::string path = fuzz::write_scratch_file("dict.tsv", data + 1, size - 1);
  nn::Options options{{"train", std::string("dict.tsv")},
                      {"validation", std::string("dict.tsv")},
                      {"test", std::string("dict.tsv")},
                      {"stress", stress},
                      {"validation_words", std::int64_t(0)}};
  std::unique_ptr<Task> task;
  if (fuzz::rejected_naming_bounded(path, [&] {
        task = task_registry().create("g2p", options, 1, fuzz::scratch_dir().string());
      }))
    return 0;
  Generator gen(3);
  const Seq2SeqBatch train = task->train_batch(gen, 4);
  fuzz::require_ids_within(train.src, task->source_vocab(), "ids lie in the vocabulary");
  fuzz::require_ids_within(train.tgt_out, task->target_vocab(), "ids lie in the vocabulary");
  const std::vector<Seq2SeqBatch> validation = task->evaluation_batches(Split::validation, 8);
  std::int64_t examples = 0;
  for (const Seq2SeqBatch& b : validation) {
    fuzz::require_ids_within(b.src, task->source_vocab(), "ids lie in the vocabulary");
    fuzz::require_ids_within(b.tgt_out, task->target_vocab(), "ids lie in the vocabulary");
    examples += b.src.shape()[0];
  }
  require(std::int64_t(task->references(Split::validation).size()) == examples,
          "every held-out word has references");
  return 0;
}
