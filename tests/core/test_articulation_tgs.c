// TGS articulation rows (artic/solve.c): one step of n windows against n steps of tau/n; drives and soft
// mimic rows at any gain never diverge and never gain energy; the two-link arm holds at every gain; the
// world's warm_start reaches articulation rows; rigid rows remove erp of their error per step, not per
// window, without turning the correction into speed.
#include "artic_support.h"

#include <math.h>

// A slider along world x (or up along z) on a fixed base, mass m, response 1/m.
static sn_articulation_id slider(sn_world* world, double mass, bool vertical, const sn_drive* drive, double x0,
								 double v0)
{
	sn_link_def links[2] = { sn_default_link_def(), sn_default_link_def() };
	links[1].parent = 0;
	links[1].joint_type = SN_LINK_JOINT_PRISMATIC;
	if (vertical)
	{
		links[1].parent_frame.q = quat_x_to_z();
		links[1].child_frame.q = quat_x_to_z();
	}
	links[1].mass = mass;
	if (drive != NULL)
	{
		links[1].drive[0] = *drive;
	}
	links[1].initial_position[0] = x0;
	links[1].initial_velocity[0] = v0;
	sn_articulation_def ad = sn_default_articulation_def();
	sn_articulation_id id;
	assert_sn_ok(sn_create_articulation(world, &ad, links, 2, &id));
	return id;
}

static sn_drive pd(double kp, double kd, double target, double target_velocity)
{
	sn_drive d = sn_default_drive();
	d.enabled = true;
	d.stiffness = kp;
	d.damping = kd;
	d.target_position = target;
	d.target_velocity = target_velocity;
	return d;
}

static sn_world* tgs_world(double dt, int windows, bool gravity)
{
	sn_world* world = make_world(SN_SOLVER_TGS, dt);
	assert_sn_ok(sn_world_set_iterations(world, windows, 1));
	if (!gravity)
	{
		assert_sn_ok(sn_world_set_gravity(world, sn_v3(0, 0, 0)));
	}
	return world;
}

// ---- one step of n windows = n steps of tau / n ------------------------------------------------------

static void test_windows_equal_substeps(void** state)
{
	(void)state;
	// A 1 kg slider without gravity, driven from 0.3 m towards a target that moves at 0.4 m/s. World A
	// steps tau with n windows; world B steps tau/n with one window, its target moved before each small
	// step to where A's interpolated sub-target is in that window (the drive note's eq. 41). Without a
	// load nothing is held and the drive starts every window from zero, so the two must agree at every
	// step of A. The gains include the band where the warm start applied at once diverged (5.6e6-1e7).
	const double kps[6] = { 1e2, 1e4, 1e6, 5.6e6, 1e7, 1e10 };
	const double tau = 0.001, target_velocity = 0.4;
	const int n = 8, steps = 200;
	for (int g = 0; g < 6; ++g)
	{
		for (int damped = 0; damped < 2; ++damped)
		{
			double kp = kps[g], kd = damped ? 2.0 * 0.1 * sqrt(kp) : 0.0;
			sn_drive drive = pd(kp, kd, 0.0, target_velocity);
			sn_world* a = tgs_world(tau, n, false);
			sn_world* b = tgs_world(tau / n, 1, false);
			sn_articulation_id ia = slider(a, 1.0, false, &drive, 0.3, 0.0);
			sn_articulation_id ib = slider(b, 1.0, false, &drive, 0.3, 0.0);
			// Speeds reach 0.3 m times the spring's rate, which a window caps at 1 / rho.
			const double vscale = 0.3 * fmin(sqrt(kp), n / tau) + target_velocity;
			for (int i = 0; i < steps; ++i)
			{
				double target_end = target_velocity * tau * (i + 1);
				assert_sn_ok(sn_articulation_set_drive_target(a, ia, 0, target_end, target_velocity));
				assert_sn_ok(sn_world_step(a));
				for (int s = 1; s <= n; ++s)
				{
					double sub = target_end - (tau - s * tau / n) * target_velocity;
					assert_sn_ok(sn_articulation_set_drive_target(b, ib, 0, sub, target_velocity));
					assert_sn_ok(sn_world_step(b));
				}
				double xa = sn_articulation_get_joint_position(a, ia, 0),
					   xb = sn_articulation_get_joint_position(b, ib, 0);
				double va = sn_articulation_get_joint_velocity(a, ia, 0),
					   vb = sn_articulation_get_joint_velocity(b, ib, 0);
				// The same operations in another order (A sums positions over its windows, B over its
				// steps): rounding only, 1e-12 of the motion's scale (0.3 m, and the speed it reaches).
				if (!(fabs(xa - xb) <= 1e-12 * (0.3 + fabs(xa))) || !(fabs(va - vb) <= 1e-12 * vscale))
				{
					fail_msg("kp %g kd %g step %d: n windows x %.17g v %.17g, n steps x %.17g v %.17g", kp, kd, i + 1,
							 xa, va, xb, vb);
				}
			}
			sn_world_destroy(a);
			sn_world_destroy(b);
		}
	}
}

// ---- gain scans ------------------------------------------------------------------------------------

// Energy of a vertical slider (x up) under gravity with a drive to 0: kinetic, spring and gravity.
static double slider_energy(double m, double kp, double x, double v)
{
	return 0.5 * m * v * v + 0.5 * kp * x * x + m * artic_g * x;
}

static void test_drive_gain_scan(void** state)
{
	(void)state;
	// A 1 kg vertical slider released 0.1 m above its target under gravity: at every gain from 1e2 to 1e12
	// N/m in quarter decades (5.6e6 and 1e7 among them, the band where the warm start applied at once
	// diverged within 20 steps), undamped and at damping ratio 0.1, at 1 ms (8 windows) and 1/60 s (32
	// windows), the energy never rises from one step to the next and the slider settles towards -m g / kp.
	// Each window is an implicit Euler step of the spring with the load held (artic/solve.c), which
	// multiplies the energy about the equilibrium by 1 / (1 + rho^2 w^2) or less.
	const double dts[2] = { 0.001, 1.0 / 60.0 };
	const int windows[2] = { 8, 32 };
	for (int d = 0; d < 2; ++d)
	{
		for (int quarter = 8; quarter <= 48; ++quarter)
		{
			const double kp = pow(10.0, quarter / 4.0);
			for (int damped = 0; damped < 2; ++damped)
			{
				double kd = damped ? 2.0 * 0.1 * sqrt(kp) : 0.0;
				sn_world* world = tgs_world(dts[d], windows[d], true);
				sn_drive drive = pd(kp, kd, 0.0, 0.0);
				sn_articulation_id id = slider(world, 1.0, true, &drive, 0.1, 0.0);
				double e = slider_energy(1.0, kp, 0.1, 0.0);
				const double scale = e + 0.5 * artic_g * artic_g / kp; // energy above the equilibrium's
				int steps = (int)(2.0 / dts[d]);
				for (int i = 0; i < steps; ++i)
				{
					assert_sn_ok(sn_world_step(world));
					double x = sn_articulation_get_joint_position(world, id, 0);
					double v = sn_articulation_get_joint_velocity(world, id, 0);
					double e1 = slider_energy(1.0, kp, x, v);
					// Rounding of the energy's terms (each up to the start energy): 1e-12 of it.
					if (!(e1 <= e + 1e-12 * scale))
					{
						fail_msg("dt %g kp %g kd %g step %d: energy rose from %.17g to %.17g J", dts[d], kp, kd, i + 1,
								 e, e1);
					}
					e = e1;
				}
				sn_world_destroy(world);
			}
		}
	}
}

static void test_two_link_arm_holds(void** state)
{
	(void)state;
	// Two 1 kg, 0.5 m links hinged about world y, held horizontally by drives against gravity, from kp
	// 1e3 to 1e8 N*m/rad in quarter decades (kd 0, and at damping ratio 0.1 of the root's load), at 1 ms
	// and 1/60 s. Before, kp = 1e5 diverged in 10 steps. The arm must stay within twice its static sag
	// (the gravity torque at the root, 9.81 N*m, over kp: an underdamped step response overshoots by less
	// than that), plus what the first step's fall can add before a drive acts (g dt^2 / 2 at the first
	// link's centre), and come to rest at its sag.
	const double dts[2] = { 0.001, 1.0 / 60.0 };
	for (int run = 0; run < 4; ++run)
	{
		int d = run % 2;
		bool damped = run >= 2;
		for (int quarter = 12; quarter <= 32; ++quarter)
		{
			const double kp = pow(10.0, quarter / 4.0);
			sn_world* world = make_world(SN_SOLVER_TGS, dts[d]);
			sn_link_def links[3];
			links[0] = sn_default_link_def();
			sn_mat33 inertia = sn_inertia_box(1.0, sn_v3(0.25, 0.025, 0.025));
			links[1] = hinge_link(0, sn_v3(0, 0, 0), 1.0, 0.25, inertia);
			links[2] = hinge_link(1, sn_v3(0.5, 0, 0), 1.0, 0.25, inertia);
			for (int i = 1; i <= 2; ++i)
			{
				links[i].drive[0] = pd(kp, damped ? 2.0 * 0.1 * sqrt(kp * 0.6) : 0.0, 0.0, 0.0);
			}
			sn_articulation_def ad = sn_default_articulation_def();
			sn_articulation_id id;
			assert_sn_ok(sn_create_articulation(world, &ad, links, 3, &id));
			const double torque = artic_g * (0.25 + 0.75); // root: both links' weight about the root axis
			const double bound = 2.0 * torque / kp + 0.5 * artic_g * dts[d] * dts[d] / 0.25;
			int steps = (int)(3.0 / dts[d]);
			double largest = 0.0;
			for (int i = 0; i < steps; ++i)
			{
				assert_sn_ok(sn_world_step(world));
				for (int k = 0; k < 2; ++k)
				{
					largest = fmax(largest, fabs(sn_articulation_get_joint_position(world, id, k)));
				}
			}
			if (!(largest <= bound))
			{
				fail_msg("dt %g kp %g: the arm left its sag bound: %.6g rad > %.6g rad", dts[d], kp, largest, bound);
			}
			if (damped)
			{
				// Settled at the root's static sag: gravity torque over kp (positive q turns the arm down).
				double q0 = sn_articulation_get_joint_position(world, id, 0);
				assert_near(q0, torque / kp, 0.02 * torque / kp, "root at its static sag");
			}
			sn_world_destroy(world);
		}
	}
}

// Two 1 kg sliders along x on a fixed base, coupled by a soft mimic x_0 - x_1 = 0 (stiffness k).
static void soft_mimic_pair(sn_world* world, double k, double kd, sn_articulation_id* out)
{
	sn_link_def links[3];
	links[0] = sn_default_link_def();
	for (int i = 1; i <= 2; ++i)
	{
		links[i] = sn_default_link_def();
		links[i].parent = 0;
		links[i].joint_type = SN_LINK_JOINT_PRISMATIC;
		links[i].mass = 1.0;
		links[i].parent_frame.p = sn_v3(0, i, 0);
	}
	links[1].initial_position[0] = 0.1;
	sn_articulation_def ad = sn_default_articulation_def();
	assert_sn_ok(sn_create_articulation(world, &ad, links, 3, out));
	sn_mimic_def md = sn_default_mimic_def();
	md.articulation = *out;
	md.soft = sn_soft_stiffness(k, kd);
	sn_mimic_id mid;
	assert_sn_ok(sn_create_mimic_joint(world, &md, &mid));
}

static void test_soft_mimic_gain_scan(void** state)
{
	(void)state;
	// The soft mimic row is an implicit spring like a drive: at k from 1e2 to 1e12 N/m in quarter decades
	// (3.2e6 and 5.6e6 among them, in the band 3e6-6e6 that diverged before; undamped and at
	// damping ratio 0.1 of the pair's reduced mass 0.5 kg), 1 ms and 1/60 s, the energy 1/2 m v^2 + 1/2 k C^2
	// never rises (before, k = 3e6-6e6 diverged).
	const double dts[2] = { 0.001, 1.0 / 60.0 };
	const int windows[2] = { 8, 32 };
	for (int d = 0; d < 2; ++d)
	{
		for (int quarter = 8; quarter <= 48; ++quarter)
		{
			const double k = pow(10.0, quarter / 4.0);
			for (int damped = 0; damped < 2; ++damped)
			{
				double kd = damped ? 2.0 * 0.1 * sqrt(k * 0.5) : 0.0;
				sn_world* world = tgs_world(dts[d], windows[d], false);
				sn_articulation_id id;
				soft_mimic_pair(world, k, kd, &id);
				double e = 0.5 * k * 0.01;
				int steps = (int)(1.0 / dts[d]);
				for (int i = 0; i < steps; ++i)
				{
					assert_sn_ok(sn_world_step(world));
					double x0 = sn_articulation_get_joint_position(world, id, 0);
					double x1 = sn_articulation_get_joint_position(world, id, 1);
					double v0 = sn_articulation_get_joint_velocity(world, id, 0);
					double v1 = sn_articulation_get_joint_velocity(world, id, 1);
					double e1 = 0.5 * (v0 * v0 + v1 * v1) + 0.5 * k * (x0 - x1) * (x0 - x1);
					// Rounding of terms up to the start energy: 1e-12 of it.
					if (!(e1 <= e + 1e-12 * 0.5 * k * 0.01))
					{
						fail_msg("dt %g k %g kd %g step %d: energy rose from %.17g to %.17g J", dts[d], k, kd, i + 1, e,
								 e1);
					}
					e = e1;
				}
				sn_world_destroy(world);
			}
		}
	}
}

// ---- warm start and erp --------------------------------------------------------------------------------

static void test_warm_start_setting_reaches_rows(void** state)
{
	(void)state;
	// A pendulum resting on a rigid limit at its lower end: the limit carries the weight. With the world's
	// warm_start at 1 and at 0 the answer (at rest on the limit) is the same, but the steps differ: a cold
	// start must be found by the sweep alone. The setting reaching the rows shows as different bits.
	uint64_t hashes[2];
	for (int w = 0; w < 2; ++w)
	{
		sn_world* world = make_world(SN_SOLVER_TGS, 0.001);
		assert_sn_ok(sn_world_set_warm_start(world, w == 0 ? 1.0 : 0.0));
		sn_link_def links[3];
		links[0] = sn_default_link_def();
		links[1] = hinge_link(0, sn_v3(0, 0, 0), 1.0, 0.5, sn_mat33_diag(0.02, 0.02, 0.02));
		links[2] = hinge_link(1, sn_v3(1, 0, 0), 1.0, 0.5, sn_mat33_diag(0.02, 0.02, 0.02));
		links[1].limit[0] = (sn_limit){ true, -1.0, 0.0, sn_soft_rigid() };
		links[2].limit[0] = (sn_limit){ true, -1.0, 0.0, sn_soft_rigid() };
		sn_articulation_def ad = sn_default_articulation_def();
		sn_articulation_id id;
		assert_sn_ok(sn_create_articulation(world, &ad, links, 3, &id));
		for (int i = 0; i < 100; ++i)
		{
			assert_sn_ok(sn_world_step(world));
		}
		// At rest on both limits either way: the limits hold the arm level to rounding.
		assert_near(sn_articulation_get_joint_position(world, id, 0), 0.0, 1e-9, "root on its limit");
		assert_near(sn_articulation_get_joint_position(world, id, 1), 0.0, 1e-9, "elbow on its limit");
		hashes[w] = sn_world_state_hash(world);
		sn_world_destroy(world);
	}
	assert_true(hashes[0] != hashes[1]);
}

static void test_erp_per_step_and_split(void** state)
{
	(void)state;
	// Two free 1 kg sliders (no gravity), at rest, 0.1 m apart, coupled by a rigid mimic x_0 - x_1 = 0 with
	// erp 0.2 and no bound on the correction speed: each step removes exactly 20% of the error, whatever
	// the number of windows (before, (1 - 0.2)^n per step), and the correction never becomes speed: the
	// sliders end each step at rest.
	const int windows[3] = { 1, 8, 32 };
	const sn_solver solvers[2] = { SN_SOLVER_PGS, SN_SOLVER_TGS };
	for (int sv = 0; sv < 2; ++sv)
	{
		for (int w = 0; w < 3; ++w)
		{
			sn_world* world = make_world(solvers[sv], 0.001);
			assert_sn_ok(sn_world_set_gravity(world, sn_v3(0, 0, 0)));
			assert_sn_ok(sn_world_set_iterations(world, windows[w], 1));
			sn_link_def links[3];
			links[0] = sn_default_link_def();
			for (int i = 1; i <= 2; ++i)
			{
				links[i] = sn_default_link_def();
				links[i].parent = 0;
				links[i].joint_type = SN_LINK_JOINT_PRISMATIC;
				links[i].mass = 1.0;
				links[i].parent_frame.p = sn_v3(0, i, 0);
			}
			links[1].initial_position[0] = 0.1;
			sn_articulation_def ad = sn_default_articulation_def();
			ad.max_correction_speed = INFINITY;
			sn_articulation_id id;
			assert_sn_ok(sn_create_articulation(world, &ad, links, 3, &id));
			sn_mimic_def md = sn_default_mimic_def();
			md.articulation = id;
			sn_mimic_id mid;
			assert_sn_ok(sn_create_mimic_joint(world, &md, &mid));
			double c = 0.1;
			for (int i = 0; i < 10; ++i)
			{
				assert_sn_ok(sn_world_step(world));
				c *= 0.8;
				// One row, solved exactly in each window: the error follows (1 - erp)^steps to rounding.
				assert_near(sn_mimic_joint_get_error(world, mid), c, 1e-12, "erp of the error per step");
				assert_near(sn_articulation_get_joint_velocity(world, id, 0), 0.0, 1e-12,
							"no speed from the correction");
				assert_near(sn_articulation_get_joint_velocity(world, id, 1), 0.0, 1e-12,
							"no speed from the correction");
			}
			sn_world_destroy(world);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_windows_equal_substeps),
		cmocka_unit_test(test_drive_gain_scan),
		cmocka_unit_test(test_two_link_arm_holds),
		cmocka_unit_test(test_soft_mimic_gain_scan),
		cmocka_unit_test(test_warm_start_setting_reaches_rows),
		cmocka_unit_test(test_erp_per_step_and_split),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
