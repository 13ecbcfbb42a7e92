// The vectorised scale-mask-max of fused attention's softmax writes the same bits as
// the scalar loop it replaced, so training results stay bit-identical: tails shorter
// than a vector, masks, NaN and infinities, zeros of both signs.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "autograd/kernels/softmax_row.h"

using namespace ablate;

TEST_CASE("scale_mask_max: the vectorised rows equal the scalar loop's bit for bit",
          "[unit][kernels]") {
  std::mt19937 gen(11);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::uniform_int_distribution<int> coin(0, 9);
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::lowest(),
                            1e-40f};
  for (std::int64_t D : {1, 3, 10, 15, 16, 17, 31, 64, 100}) {
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<float> row(std::size_t(D) + 1);  // +1: a sentinel past the end
      std::vector<std::uint8_t> mask(static_cast<std::size_t>(D), 0);
      for (std::int64_t j = 0; j < D; ++j) {
        row[std::size_t(j)] = coin(gen) == 0 ? specials[std::size_t(coin(gen)) % 7] : normal(gen);
        mask[std::size_t(j)] = std::uint8_t(trial % 5 == 0 ? 0 : coin(gen) < 7 ? 1 : coin(gen) + 1);
      }
      row[std::size_t(D)] = 12345.0f;
      for (const std::uint8_t* m : std::vector<const std::uint8_t*>{nullptr, mask.data()}) {
        const float scale = trial % 2 ? 0.25f : 1.0f / std::sqrt(float(D));
        std::vector<float> scalar = row, vector = row;
        const float expected = kernels::scale_mask_max_scalar(scalar.data(), D, scale, m);
        const float got = kernels::scale_mask_max(vector.data(), D, scale, m);
        CHECK(got == expected);  // the maximum (a zero's sign cannot reach the softmax)
        CHECK(!std::isnan(got));
        for (std::size_t j = 0; j < row.size(); ++j)
          CHECK(std::bit_cast<std::uint32_t>(vector[j]) == std::bit_cast<std::uint32_t>(scalar[j]));
      }
    }
  }
}
