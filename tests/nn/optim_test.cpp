// Losses and optimizers (schedules and gradient norms: schedule_gradients_test.cpp).
#include <catch2/catch.hpp>

#include "tests/error_message.h"

#include <cmath>
#include <map>
#include <numbers>

#include "autograd/gradcheck.h"
#include "nn/losses.h"
#include "nn/optim/gradients.h"
#include "nn/optim/optimizer.h"
#include "nn/optim/schedule.h"
#include "nn/transformer/transformer_models.h"

using namespace ablate;
using namespace ablate::nn;

namespace {

using Trajectory = std::vector<std::array<double, 2>>;

// The fixed gradients and learning rates of the reference runs below.
const Trajectory kGradients = {{0.5, -1.0}, {-0.25, 0.75}, {1.5, 0.1}};
const double kRates[3] = {0.1, 0.05, 0.2};

// Three steps of `name` on w = [1, -2] with the gradients above; w after each step.
Trajectory run_reference(const std::string& name, const Options& options, DType dtype) {
  Parameter w(Tensor::from_data({2}, std::vector<double>{1.0, -2.0}, dtype));
  auto opt = optimizer_registry().create(name, options, {{"w", &w}});
  Trajectory out;
  for (int k = 0; k < 3; ++k) {
    w.grad.set(0, kGradients[k][0]);
    w.grad.set(1, kGradients[k][1]);
    opt->step(kRates[k]);
    out.push_back({w.value.at(0), w.value.at(1)});
  }
  CHECK(opt->steps() == 3);
  return out;
}

void check_trajectory(const Trajectory& got, const Trajectory& want, double rel) {
  REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < want.size(); ++k)
    for (int i = 0; i < 2; ++i) {
      INFO("step " << k + 1 << " element " << i);
      CHECK(got[k][i] == Approx(want[k][i]).epsilon(rel));
    }
}

// Reference numbers from PyTorch 1.13, float64 (/usr/bin/python3):
//   import torch; O = torch.optim
//   grads = [[0.5, -1.0], [-0.25, 0.75], [1.5, 0.1]]; lrs = (0.1, 0.05, 0.2)
//   def run(make):
//       p = torch.nn.Parameter(torch.tensor([1.0, -2.0], dtype=torch.float64))
//       opt = make([p]); out = []
//       for g, lr in zip(grads, lrs):
//           for group in opt.param_groups: group['lr'] = lr
//           p.grad = torch.tensor(g, dtype=torch.float64); opt.step()
//           out.append([float(x) for x in p.detach()])
//       return out
//   run(lambda ps: O.SGD(ps, lr=0.1))                                            # sgd
//   run(lambda ps: O.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01))
//   run(lambda ps: O.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01))
//   run(lambda ps: O.Adam(ps, lr=0.1))                                           # adam
//   run(lambda ps: O.Adam(ps, lr=0.1, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1))
//   run(lambda ps: O.AdamW(ps, lr=0.1, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1))
struct ReferenceCase {
  const char* label;
  const char* optimizer;
  Options options;
  Trajectory torch;
};

const std::vector<ReferenceCase>& reference_cases() {
  static const std::vector<ReferenceCase> cases = {
      {"sgd",
       "sgd",
       {},
       {{0.95, -1.9}, {0.9624999999999999, -1.9375}, {0.6624999999999999, -1.9575}}},
      {"sgd momentum, dampening, L2",
       "sgd",
       {{"momentum", 0.9}, {"dampening", 0.1}, {"weight_decay", 0.01}},
       {{0.949, -1.898},
        {0.9368729499999999, -1.8849958999999998},
        {0.6215291986899999, -1.8527881473799999}}},
      {"sgd nesterov, L2",
       "sgd",
       {{"momentum", 0.9}, {"nesterov", true}, {"weight_decay", 0.01}},
       {{0.9031, -1.8062}, {0.9053370550000001, -1.83442411}, {0.296575752191, -1.835311254382}}},
      {"adam",
       "adam",
       {},
       {{0.900000002, -1.900000001},
        {0.8866831503539232, -1.8955337506802679},
        {0.7525830387704535, -1.8919648795419308}}},
      {"adam betas, eps, L2",
       "adam",
       {{"beta1", 0.8}, {"beta2", 0.99}, {"eps", 1e-6}, {"weight_decay", 0.1}},
       {{0.9000001666663889, -1.900000083333264},
        {0.8797120670461976, -1.8881148199307227},
        {0.7267467595388367, -1.8442048232580308}}},
      {"adamw betas, eps, decoupled decay",
       "adamw",
       {{"beta1", 0.8}, {"beta2", 0.99}, {"eps", 1e-6}, {"weight_decay", 0.1}},
       {{0.8900001999996, -1.8800000999999},
        {0.8749933733458466, -1.8690276462383593},
        {0.7143790907353422, -1.838461604459022}}},
  };
  return cases;
}

// The documented Adam formulas written out once more, independently of the class.
Trajectory adam_by_formula(double b1, double b2, double eps, double wd, bool decoupled) {
  double w[2] = {1.0, -2.0}, m[2] = {0, 0}, v[2] = {0, 0};
  Trajectory out;
  for (int k = 1; k <= 3; ++k) {
    const double lr = kRates[k - 1];
    for (int i = 0; i < 2; ++i) {
      double g = kGradients[k - 1][i];
      if (decoupled)
        w[i] -= lr * wd * w[i];
      else
        g += wd * w[i];
      m[i] = b1 * m[i] + (1 - b1) * g;
      v[i] = b2 * v[i] + (1 - b2) * g * g;
      const double m_hat = m[i] / (1 - std::pow(b1, k));
      w[i] -= lr * m_hat / (std::sqrt(v[i]) / std::sqrt(1 - std::pow(b2, k)) + eps);
    }
    out.push_back({w[0], w[1]});
  }
  return out;
}

Tensor ids(const Shape& shape, std::vector<std::int32_t> values) {
  return Tensor::from_data(shape, std::span<const std::int32_t>(values));
}

using ablate::testing::error_of;

}  // namespace

// ---- losses -----------------------------------------------------------------------

TEST_CASE("losses: values of mae, mse and cross entropy", "[optim]") {
  Tape tape;
  TapeScope scope(tape);
  Var a = constant(Tensor::from_data({2, 2}, std::vector<double>{1, -2, 3, 0.5}, DType::f64));
  Var b = constant(Tensor::from_data({2, 2}, std::vector<double>{0, 1, 3, -0.5}, DType::f64));
  CHECK(mae_loss(a, b).item() == Approx((1 + 3 + 0 + 1) / 4.0));
  CHECK(mse_loss(a, b).item() == Approx((1 + 9 + 0 + 1) / 4.0));
  CHECK_THROWS_WITH(mae_loss(a, constant(Tensor::zeros({2}, DType::f64))),
                    Catch::Contains("[2, 2]") && Catch::Contains("[2]"));

  // Two tokens over 3 classes, the second ignored: the loss is the first token's.
  Var logits =
      constant(Tensor::from_data({2, 3}, std::vector<double>{1, 2, 3, 5, 5, 5}, DType::f64));
  Tensor targets = ids({2}, {2, 0});
  const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  CHECK(cross_entropy_loss(logits, targets, 0).item() == Approx(lse - 3));
  // Label smoothing ε: (1-ε)·NLL + ε·mean over classes of -log p.
  const double eps = 0.1, mean_nll = lse - 2;
  CHECK(cross_entropy_loss(logits, targets, 0, eps).item() ==
        Approx((1 - eps) * (lse - 3) + eps * mean_nll));
}

TEST_CASE("losses: mae_loss passes an f64 gradcheck", "[optim]") {
  Generator gen(11);
  std::vector<Tensor> inputs = {randn({3, 4}, gen, DType::f64), randn({3, 4}, gen, DType::f64)};
  GradcheckResult r =
      gradcheck([](std::span<const Var> x) { return mae_loss(x[0], x[1]); }, inputs);
  INFO(r.message);
  CHECK(r.ok);
}

// ---- optimizers -------------------------------------------------------------------

TEST_CASE("optimizers: three steps match PyTorch 1.13 in f64 and f32", "[optim]") {
  for (const ReferenceCase& c : reference_cases()) {
    INFO(c.label);
    check_trajectory(run_reference(c.optimizer, c.options, DType::f64), c.torch, 1e-13);
    check_trajectory(run_reference(c.optimizer, c.options, DType::f32), c.torch, 1e-6);
  }
}

TEST_CASE("optimizers: adam and adamw follow the documented formulas", "[optim]") {
  check_trajectory(run_reference("adam", {}, DType::f64),
                   adam_by_formula(0.9, 0.999, 1e-8, 0, false), 1e-13);
  Options o{{"beta1", 0.8}, {"beta2", 0.99}, {"eps", 1e-6}, {"weight_decay", 0.1}};
  check_trajectory(run_reference("adam", o, DType::f64),
                   adam_by_formula(0.8, 0.99, 1e-6, 0.1, false), 1e-13);
  check_trajectory(run_reference("adamw", o, DType::f64),
                   adam_by_formula(0.8, 0.99, 1e-6, 0.1, true), 1e-13);
  // AdamW's default decay is 0.01 (as PyTorch's).
  check_trajectory(run_reference("adamw", {}, DType::f64),
                   adam_by_formula(0.9, 0.999, 1e-8, 0.01, true), 1e-13);
}

TEST_CASE("optimizers: state names, save and load continue an interrupted run exactly", "[optim]") {
  struct Kind {
    const char* name;
    Options options;
    std::vector<std::string> slots;
  };
  const std::vector<Kind> kinds = {{"sgd", {{"momentum", 0.9}}, {"momentum_buffer"}},
                                   {"adam", {}, {"exp_avg", "exp_avg_sq"}},
                                   {"adamw", {}, {"exp_avg", "exp_avg_sq"}}};
  auto gradient_at = [](int step, Parameter& a, Parameter& b) {
    for (std::int64_t i = 0; i < a.grad.numel(); ++i) a.grad.set(i, std::sin(step + 0.3 * i));
    for (std::int64_t i = 0; i < b.grad.numel(); ++i) b.grad.set(i, std::cos(2.0 * step - i));
  };
  const double lr = 0.05;
  for (const Kind& kind : kinds) {
    INFO(kind.name);
    Generator gen(5);
    const Tensor a0 = randn({2, 3}, gen), b0 = randn({3}, gen);

    // Uninterrupted: five steps.
    Parameter a(a0.clone()), b(b0.clone());
    auto opt = optimizer_registry().create(kind.name, kind.options,
                                           {{"layer.weight", &a}, {"layer.bias", &b}});
    for (int s = 1; s <= 5; ++s) gradient_at(s, a, b), opt->step(lr);

    // Interrupted after three: snapshot values and state, then resume in a new optimizer.
    Parameter a1(a0.clone()), b1(b0.clone());
    auto first = optimizer_registry().create(kind.name, kind.options,
                                             {{"layer.weight", &a1}, {"layer.bias", &b1}});
    for (int s = 1; s <= 3; ++s) gradient_at(s, a1, b1), first->step(lr);
    NamedTensors saved;
    for (const auto& [name, t] : first->state()) saved.emplace_back(name, t.clone());
    std::vector<std::string> names;
    for (const auto& [name, t] : saved) names.push_back(name);
    std::vector<std::string> expected;
    for (const char* p : {"layer.weight", "layer.bias"})
      for (const std::string& slot : kind.slots)
        expected.push_back("optimizer." + std::string(p) + "." + slot);
    expected.push_back("optimizer.step");
    CHECK(names == expected);
    CHECK(saved.back().second.item() == 3);

    Parameter a2(a1.value.clone()), b2(b1.value.clone());
    auto resumed = optimizer_registry().create(kind.name, kind.options,
                                               {{"layer.weight", &a2}, {"layer.bias", &b2}});
    saved.emplace_back("layer.weight", a1.value);  // non-optimizer entries are ignored
    resumed->load_state(saved);
    CHECK(resumed->steps() == 3);
    for (int s = 4; s <= 5; ++s) gradient_at(s, a2, b2), resumed->step(lr);
    CHECK(allclose(a2.value, a.value, 0, 0));
    CHECK(allclose(b2.value, b.value, 0, 0));
  }
}

TEST_CASE("optimizers: load_state names missing, mis-shaped and unexpected entries", "[optim]") {
  Parameter w(Tensor::zeros({2, 2})), b(Tensor::zeros({2}));
  auto opt = optimizer_registry().create("adam", {}, {{"w", &w}, {"b", &b}});
  NamedTensors good = opt->state();
  CHECK_NOTHROW(opt->load_state(good));

  NamedTensors bad;
  for (const auto& [name, t] : good) {
    if (name == "optimizer.w.exp_avg") continue;  // missing
    if (name == "optimizer.b.exp_avg_sq")
      bad.emplace_back(name, Tensor::zeros({3}));  // mis-shaped
    else
      bad.emplace_back(name, t);
  }
  bad.emplace_back("optimizer.v.exp_avg", Tensor::zeros({2}));  // unexpected
  const std::string msg = error_of([&] { opt->load_state(bad); });
  CHECK_THAT(msg, Catch::Contains("missing 'optimizer.w.exp_avg'"));
  CHECK_THAT(msg, Catch::Contains("'optimizer.b.exp_avg_sq' has shape [3], expected [2]"));
  CHECK_THAT(msg, Catch::Contains("unexpected 'optimizer.v.exp_avg'"));

  w.grad.fill(1.0);
  opt->step(0.1);
  NamedTensors no_step(good.begin(), good.end() - 1);
  CHECK_THAT(error_of([&] { opt->load_state(no_step); }),
             Catch::Contains("missing 'optimizer.step'"));
  CHECK(opt->steps() == 1);  // a failed load changes nothing
}

TEST_CASE("optimizers: frozen parameters are neither updated nor given state", "[optim]") {
  Parameter trained(Tensor::ones({2})), frozen(Tensor::ones({2}), false), later(Tensor::ones({2}));
  auto opt = optimizer_registry().create(
      "sgd", {{"momentum", 0.5}}, {{"trained", &trained}, {"frozen", &frozen}, {"later", &later}});
  CHECK(opt->parameters().size() == 2);
  for (const auto& [name, t] : opt->state()) CHECK(name.find("frozen") == std::string::npos);

  later.requires_grad = false;  // frozen after construction: skipped by step()
  for (Parameter* p : {&trained, &frozen, &later}) p->grad.fill(1.0);
  opt->step(0.1);
  CHECK(trained.value.at(0) == Approx(0.9));
  CHECK(frozen.value.at(0) == 1.0);
  CHECK(later.value.at(0) == 1.0);

  opt->zero_grad();
  CHECK(trained.grad.at(0) == 0.0);
  CHECK(frozen.grad.at(0) == 1.0);  // not the optimizer's parameter
}

TEST_CASE("optimizers: state is allocated once, not per step", "[optim]") {
  Parameter w(Tensor::ones({4}));
  auto opt = optimizer_registry().create("adamw", {}, {{"w", &w}});
  std::vector<void*> before;
  for (const auto& [name, t] : opt->state())
    if (name != "optimizer.step") before.push_back(t.raw());
  w.grad.fill(0.5);
  for (int s = 0; s < 3; ++s) opt->step(0.01);
  std::vector<void*> after;
  for (const auto& [name, t] : opt->state())
    if (name != "optimizer.step") after.push_back(t.raw());
  CHECK(before == after);
}

TEST_CASE("optimizers: registry errors name the component, the option and what is allowed",
          "[optim]") {
  Parameter w(Tensor::ones({2}));
  NamedParameters ps = {{"w", &w}};
  const auto& reg = optimizer_registry();
  CHECK(reg.axis() == "optimizer");
  CHECK(reg.names() == std::vector<std::string>{"sgd", "adam", "adamw"});

  std::string msg = error_of([&] { reg.create("adma", {}, ps); });
  CHECK_THAT(msg, Catch::Contains("unknown component 'adma'") &&
                      Catch::Contains("did you mean 'adam'") &&
                      Catch::Contains("allowed: sgd adam adamw"));
  msg = error_of([&] { reg.create("sgd", {{"momentum", -0.5}}, ps); });
  CHECK_THAT(msg, Catch::Contains("optimizer 'sgd'") &&
                      Catch::Contains("'momentum' = -0.5 is out of range"));
  msg = error_of([&] { reg.create("adam", {{"weight_decay", -1.0}}, ps); });
  CHECK_THAT(msg,
             Catch::Contains("'weight_decay' = -1.0") || Catch::Contains("'weight_decay' = -1"));
  msg = error_of([&] { reg.create("adam", {{"beta1", 1.0}}, ps); });
  CHECK_THAT(msg, Catch::Contains("'beta1'") && Catch::Contains("[0, 1)"));
  msg = error_of([&] { reg.create("sgd", {{"nesterov", true}}, ps); });
  CHECK_THAT(msg, Catch::Contains("'nesterov'") && Catch::Contains("momentum > 0"));
  msg = error_of([&] { reg.create("adamw", {{"betas", 0.9}}, ps); });
  CHECK_THAT(msg, Catch::Contains("unknown option 'betas'") && Catch::Contains("did you mean"));

  auto opt = reg.create("sgd", {}, ps);
  CHECK_THAT(error_of([&] { opt->step(-0.1); }),
             Catch::Contains("learning rate must be finite and >= 0"));
  CHECK_THAT(error_of([&] {
               reg.create("sgd", {}, {{"w", &w}, {"w2", &w}});
             }),
             Catch::Contains("'w2' is the same Parameter as 'w'"));
}
