// A point-like bob on a 1 m massless arm, hinged to the world, released at 90 degrees.
//
// Exact period: T = 4 sqrt(L/g) K(k), k = sin(theta0 / 2), K the complete elliptic integral of the first
// kind, here by the arithmetic-geometric mean: K(k) = pi / (2 AGM(1, sqrt(1 - k^2))).
//
// Both solvers solve the velocity rows at the pose where the step starts, so each solve projects the
// velocity onto the tangent of the circle there and removes the radial part the last step's motion
// created: a loss of (1/2) m (v^2 h / L)^2 per solve of length h. With v^2 = 2 g L cos(theta) (released
// at 90 degrees) and the time average of cos^2 about 1/2, the loss rate is about m g^2 h: 0.96 J in 10 s
// for PGS (h = 1 ms) and h/8 of it for TGS (8 sub-advances). Energy only ever leaves; it may rise only
// by the position correction of the drift, which is of order the constraint error times m g.
#include "support.h"

#include "sinew/sinew.h"

static const double g = 9.81, arm = 1.0, dt = 0.001;

static double complete_elliptic_k(double k)
{
	double a = 1.0, b = sqrt(1.0 - k * k);
	for (int i = 0; i < 30; ++i)
	{
		double an = 0.5 * (a + b);
		b = sqrt(a * b);
		a = an;
	}
	return SN_PI / (2.0 * a);
}

typedef struct pendulum_run
{
	double first_period; // s, between the first two downward crossings of x = 0
	double energy_min;   // J, relative to the release
	double energy_max;
	double max_arm_error; // m, |pivot anchor| drift
} pendulum_run;

static pendulum_run run_pendulum(sn_solver solver, double seconds)
{
	sn_world_def wd = sn_default_world_def();
	wd.solver = solver;
	wd.time_step = dt;
	wd.gravity = sn_v3(0, 0, -g);
	sn_world* world;
	assert_sn_ok(sn_world_create(&wd, &world));

	sn_body_def bd = sn_default_body_def();
	bd.pose.p = sn_v3(arm, 0, 0);
	bd.mass = 1.0;
	bd.inertia = sn_inertia_sphere(1.0, 0.01); // point-like: rotational energy ~1e-4 of the swing
	sn_body_id bob;
	assert_sn_ok(sn_create_body(world, &bd, &bob));

	// Hinge axis along world y: the joint x axis is turned onto y on both sides.
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
	hd.base.body_b = bob;
	hd.base.frame_a.q = x_to_y;
	hd.base.frame_b.q = x_to_y;
	hd.base.frame_b.p = sn_v3(-arm, 0, 0);
	sn_joint_id hinge;
	assert_sn_ok(sn_create_hinge_joint(world, &hd, &hinge));

	pendulum_run out = { 0.0, 0.0, 0.0, 0.0 };
	double previous_x = arm, first_crossing = -1.0;
	int steps = (int)(seconds / dt + 0.5);
	for (int i = 0; i < steps; ++i)
	{
		assert_sn_ok(sn_world_step(world));
		sn_vec3 p = sn_body_get_center_of_mass(world, bob);
		double energy = sn_body_get_kinetic_energy(world, bob) + bd.mass * g * p.z;
		out.energy_min = fmin(out.energy_min, energy);
		out.energy_max = fmax(out.energy_max, energy);
		sn_vec3 pivot = sn_transform_point(sn_body_get_pose(world, bob), sn_v3(-arm, 0, 0));
		out.max_arm_error = fmax(out.max_arm_error, sn_length(pivot));
		if (previous_x > 0.0 && p.x <= 0.0)
		{
			// Linear interpolation of the crossing inside the step.
			double t = sn_world_get_time(world) - dt * p.x / (p.x - previous_x);
			if (first_crossing < 0.0)
			{
				first_crossing = t;
			}
			else if (out.first_period == 0.0)
			{
				out.first_period = t - first_crossing;
			}
		}
		previous_x = p.x;
	}
	sn_world_destroy(world);
	return out;
}

static double exact_period(void)
{
	return 4.0 * sqrt(arm / g) * complete_elliptic_k(sin(0.25 * SN_PI));
}

static void test_exact_period_value(void** state)
{
	(void)state;
	// K(1/sqrt(2)) = 1.8540746773013719 (Abramowitz and Stegun 17.3); checks the AGM itself.
	assert_near(complete_elliptic_k(sqrt(0.5)), 1.8540746773013719, 1e-14, "AGM converges quadratically");
	assert_near(exact_period(), 2.3678, 1e-4, "4 sqrt(1/9.81) K: hand value");
}

static void test_tgs_period_and_energy(void** state)
{
	(void)state;
	pendulum_run run = run_pendulum(SN_SOLVER_TGS, 10.0);
	// First period within 0.1%: the O(h/8) dissipation shortens the swing by ~0.03% per period.
	assert_near(run.first_period, exact_period(), 1e-3 * exact_period(), "TGS dissipation, see file header");
	// Loss bound m g^2 h / 8 * 10 s = 0.12 J (header); gain bound 1e-3 J (drift correction ~1e-6 m * m g).
	assert_below(-run.energy_min, 0.12, "TGS loses at most m g^2 (h/8) per second");
	assert_below(run.energy_max, 1e-3, "energy does not grow");
	// Arm drift below 1e-5 m: per sub-advance the tangent motion lifts the bob (v rho)^2 / 2L ~ 1.5e-7 m,
	// corrected at erp = 0.2 per sub-advance, so the steady error is ~1e-6 m.
	assert_below(run.max_arm_error, 1e-5, "position drift (v rho)^2/2L at erp 0.2");
}

static void test_pgs_period_and_energy(void** state)
{
	(void)state;
	pendulum_run run = run_pendulum(SN_SOLVER_PGS, 10.0);
	// First period within 0.5%: PGS loses ~0.25% of the energy per period at h = 1 ms, and the period
	// of a 90 degree swing changes by about half the relative amplitude loss.
	assert_near(run.first_period, exact_period(), 5e-3 * exact_period(), "PGS dissipation, see file header");
	assert_below(-run.energy_min, 0.96, "PGS loses at most m g^2 h per second");
	assert_below(run.energy_max, 1e-3, "energy does not grow");
	// Drift (v h)^2 / 2L ~ 1e-5 m per step at erp 0.2: steady error ~5e-5 m.
	assert_below(run.max_arm_error, 1e-4, "position drift (v h)^2/2L at erp 0.2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_period_value),
		cmocka_unit_test(test_tgs_period_and_energy),
		cmocka_unit_test(test_pgs_period_and_energy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
