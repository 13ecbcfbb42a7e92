// Tensor and Shape: creation, dtypes, printing, and errors that name both shapes.
#include <catch2/catch.hpp>

#include "autograd/ablate.h"

using namespace ablate;

TEST_CASE("creation functions fill as documented in both float dtypes") {
  for (DType dt : {DType::f32, DType::f64}) {
    CHECK(Tensor::zeros({2, 3}, dt).at(5) == 0.0);
    CHECK(Tensor::ones({4}, dt).at(3) == 1.0);
    CHECK(Tensor::full({2, 2}, 2.5, dt).at(1) == 2.5);
    Tensor r = Tensor::arange(0, 1, 0.25, dt);
    REQUIRE(r.shape() == Shape{4});
    CHECK(r.at(3) == 0.75);
    CHECK(r.dtype() == dt);
  }
  Tensor d = Tensor::from_data({2, 2}, std::vector<double>{1, 2, 3, 4}, DType::f64);
  CHECK(d.at(2) == 3.0);
  CHECK(Tensor::arange(5, 0, -2, DType::i32).numel() == 3);
}

TEST_CASE("from_data rejects a value count that does not fit the shape") {
  CHECK_THROWS_WITH(Tensor::from_data({2, 3}, std::vector<double>{1, 2}),
                    Catch::Contains("[2, 3]") && Catch::Contains("6 values, got 2"));
}

TEST_CASE("typed access checks the dtype") {
  Tensor t = Tensor::zeros({2}, DType::f32);
  CHECK_NOTHROW(t.data<float>());
  CHECK_THROWS_WITH(t.data<double>(), Catch::Contains("f32") && Catch::Contains("f64"));
}

TEST_CASE("shapes: rank limit, negative axes, broadcasting errors name both shapes") {
  CHECK_THROWS_WITH((Shape{1, 2, 3, 4, 5}), Catch::Contains("maximum rank 4"));
  Shape s{2, 3, 4};
  CHECK(s[-1] == 4);
  CHECK(s.numel() == 24);
  CHECK(s.inner(0) == 12);
  CHECK(s.outer(2) == 6);
  CHECK(Shape{}.numel() == 1);
  CHECK(broadcast_shapes({2, 1, 4}, {3, 1}, "add") == Shape{2, 3, 4});
  CHECK_THROWS_WITH(broadcast_shapes({2, 3}, {4}, "add"),
                    Catch::Contains("add") && Catch::Contains("[2, 3]") && Catch::Contains("[4]"));
}

TEST_CASE("ops report shape errors with both shapes") {
  Tape tape;
  TapeScope scope(tape);
  Var a = tape.constant(Tensor::ones({2, 3})), b = tape.constant(Tensor::ones({4, 5}));
  CHECK_THROWS_WITH(matmul(a, b), Catch::Contains("[2, 3]") && Catch::Contains("[4, 5]"));
  CHECK_THROWS_WITH(a + b, Catch::Contains("[2, 3]") && Catch::Contains("[4, 5]"));
  CHECK_THROWS_WITH(mse(a, b), Catch::Contains("[2, 3]") && Catch::Contains("[4, 5]"));
  Var c = tape.constant(Tensor::ones({2, 3}, DType::f64));
  CHECK_THROWS_WITH(a + c, Catch::Contains("f32") && Catch::Contains("f64"));
}

TEST_CASE("printing is readable and elides long dimensions") {
  Tensor t = Tensor::from_data({2, 2}, std::vector<double>{1, 2.5, -3, 4});
  CHECK(t.str() == "tensor([[1, 2.5],\n        [-3, 4]], shape=[2, 2], dtype=f32)");
  Tensor long_row = Tensor::arange(0, 10, 1, DType::i32);
  CHECK(long_row.str() == "tensor([0, 1, 2, ..., 7, 8, 9], shape=[10], dtype=i32)");
  CHECK(Tensor::full({}, 7, DType::f64).str() == "tensor(7, shape=[], dtype=f64)");
  CHECK(Tensor::from_data({2}, std::vector<double>{1, 0}, DType::b8).str() ==
        "tensor([true, false], shape=[2], dtype=b8)");
}

TEST_CASE("copies alias like PyTorch tensors, clone and to() copy") {
  Tensor a = Tensor::zeros({3});
  Tensor alias = a;
  alias.set(0, 5);
  CHECK(a.at(0) == 5.0);
  Tensor copy = a.clone();
  copy.set(0, 1);
  CHECK(a.at(0) == 5.0);
  Tensor d = a.to(DType::f64);
  CHECK(d.dtype() == DType::f64);
  CHECK(d.at(0) == 5.0);
  CHECK(allclose(a, a.clone()));
  CHECK_FALSE(allclose(a, copy));
}
