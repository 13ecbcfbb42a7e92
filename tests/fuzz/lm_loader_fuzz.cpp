// Fuzz target: the lm task's corpus loader (a researcher's own text, one document a
// line), read through the task factory as an experiment would: the shared text reader
// (UTF-8, NULs, BOM, size), tokenizing, the vocabulary, the streams.
//
// Bad input must be a std::runtime_error naming the file, with a bounded, printable
// message. Accepted input must give training and evaluation batches whose ids lie in
// the vocabulary.
#include <string>

#include "experiments/tasks/task.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/text_message.h"

using namespace ablate;
using namespace ablate::experiments;
using ablate::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  // The first byte picks the tokenization and the context (1..4); the rest is the text,
  // used as all three splits.
  const std::string tokens = (data[0] & 1) ? "char" : "whitespace";
  const std::int64_t context = 1 + ((data[0] >> 1) & 3);
  const std::string path = fuzz::write_scratch_file("text.txt", data + 1, size - 1);
  nn::Options options{{"train", std::string("text.txt")},
                      {"validation", std::string("text.txt")},
                      {"test", std::string("text.txt")},
                      {"tokens", tokens},
                      {"context", context}};
  std::unique_ptr<Task> task;
  if (fuzz::rejected_naming_bounded(path, [&] {
        task = task_registry().create("lm", options, 1, fuzz::scratch_dir().string());
      }))
    return 0;
  Generator gen(3);
  const LmBatch train = task->lm_train_batch(gen, 2);
  fuzz::require_ids_within(train.input, task->target_vocab(), "ids lie in the vocabulary");
  fuzz::require_ids_within(train.target, task->target_vocab(), "ids lie in the vocabulary");
  for (const LmBatch& b : task->lm_evaluation_batches(Split::validation, 4, context)) {
    fuzz::require_ids_within(b.input, task->target_vocab(), "ids lie in the vocabulary");
    fuzz::require_ids_within(b.target, task->target_vocab(), "ids lie in the vocabulary");
  }
  return 0;
}
