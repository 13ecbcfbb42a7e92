// Fuzz target: the TSV loader of the text_pairs task (a researcher's own sequence
// pairs), read through the task factory as an experiment would (line checks,
// tokenizing, the seeded split, vocabularies).
//
// Bad input must be a std::runtime_error naming the file (with the line). Accepted
// input must give batches whose ids all lie inside the task's vocabularies and whose
// lengths respect the task's maxima — what the embedding lookups rely on.
#include <string>

#include "experiments/tasks/task.h"
#include "tests/fuzz/fuzz_input.h"

using namespace ablate;
using namespace ablate::experiments;
using ablate::fuzz::require;

namespace {

void check_batch(const Task& task, const Seq2SeqBatch& b) {
  fuzz::require_ids_within(b.src, task.source_vocab(), "source ids lie in the source vocabulary");
  fuzz::require_ids_within(b.tgt_in, task.target_vocab(),
                           "target ids lie in the target vocabulary");
  fuzz::require_ids_within(b.tgt_out, task.target_vocab(),
                           "target ids lie in the target vocabulary");
  require(b.src.shape()[1] <= task.max_source_length(), "sources fit max_source_length");
  require(b.tgt_in.shape()[1] <= task.max_target_length(), "targets fit max_target_length");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  // The first byte picks the tokenization and lowercasing; the rest is the file.
  const std::string tokens = (data[0] & 1) ? "char" : "whitespace";
  const bool lowercase = data[0] & 2;
  const std::string path = fuzz::write_scratch_file("pairs.tsv", data + 1, size - 1);
  nn::Options options{{"path", std::string("pairs.tsv")},
                      {"tokens", tokens},
                      {"lowercase", lowercase},
                      {"max_length", std::int64_t(16)}};
  std::unique_ptr<Task> task;
  if (fuzz::rejected_naming(path, [&] {
        task = task_registry().create("text_pairs", options, 1, fuzz::scratch_dir().string());
      }))
    return 0;
  Generator gen(3);
  check_batch(*task, task->train_batch(gen, 4));
  std::vector<Seq2SeqBatch> validation = task->evaluation_batches(Split::validation, 8);
  require(!validation.empty(), "there is at least one validation pair");
  for (const Seq2SeqBatch& b : validation) check_batch(*task, b);
  return 0;
}
