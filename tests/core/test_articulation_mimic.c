// Mimic joints (PhysX's mimic-joint notes) and the unit test impulses r_ij they are built on.
//
// Why the error of a hard mimic joint stays at rounding: the constraint C = q_0 + sum G_i q_i + gamma is
// linear in the joint positions, and a window advances every position by h_w times its speed, so
// C_new = C + h_w J v. A row solved exactly leaves J v = -erp C / h_w, hence C_new = (1 - erp) C: a
// satisfied coupling stays satisfied whatever drives the leader, up to the rounding of each solve. The
// tests therefore bound it by 1e-12, and the cases that cannot be exact (a force limit that is reached,
// a compliant coupling) are tested against their own physics.
#include "artic_support.h"

#include <math.h>

// ---- r_ij ---------------------------------------------------------------------------------------------

static void test_response_closed_forms(void** state)
{
	(void)state;
	const double dt = 0.001;
	sn_world* world = make_world(SN_SOLVER_TGS, dt);
	// Planar two-link arm, point-like masses at the link ends (inertia i0 about each centre): joint-space
	// inertia by hand, M11 = 2 i0 + m1 L1^2 + m2 (L1^2 + L2^2 + 2 L1 L2 cos q2), M12 = i0 + m2 (L2^2 +
	// L1 L2 cos q2), M22 = i0 + m2 L2^2; r = M^-1.
	const double m1 = 1.5, m2 = 0.7, l1 = 0.8, l2 = 0.5, i0 = 0.01, q1 = 0.3, q2 = 0.7;
	sn_link_def links[3];
	links[0] = sn_default_link_def();
	links[1] = hinge_link(0, sn_v3(0, 0, 0), m1, l1, sn_mat33_diag(i0, i0, i0));
	links[2] = hinge_link(1, sn_v3(l1, 0, 0), m2, l2, sn_mat33_diag(i0, i0, i0));
	links[1].initial_position[0] = q1;
	links[2].initial_position[0] = q2;
	sn_articulation_def ad = sn_default_articulation_def();
	sn_articulation_id arm;
	assert_sn_ok(sn_create_articulation(world, &ad, links, 3, &arm));
	double c2 = cos(q2);
	double m11 = 2.0 * i0 + m1 * l1 * l1 + m2 * (l1 * l1 + l2 * l2 + 2.0 * l1 * l2 * c2);
	double m12 = i0 + m2 * (l2 * l2 + l1 * l2 * c2);
	double m22 = i0 + m2 * l2 * l2;
	double det = m11 * m22 - m12 * m12;
	double expected[2][2] = { { m22 / det, -m12 / det }, { -m12 / det, m11 / det } };
	for (int i = 0; i < 2; ++i)
	{
		for (int j = 0; j < 2; ++j)
		{
			double r;
			assert_sn_ok(sn_articulation_compute_response(world, arm, i, j, &r));
			// Two routes to M^-1 (recursion and 2x2 inverse), both well conditioned here: 1e-12 relative.
			assert_near(r, expected[i][j], 1e-12 * fabs(expected[i][j]), "r_ij = (M^-1)_ij for the planar arm");
		}
	}

	// One link with armature J and damping b: r = 1 / (I + J + h b) (implicit damping over one step).
	sn_link_def spin[2];
	spin[0] = sn_default_link_def();
	spin[1] = hinge_link(0, sn_v3(0, 0, 0), 2.0, 0.5, sn_mat33_diag(0.1, 0.1, 0.1));
	spin[1].armature = 0.3;
	spin[1].joint_damping = 40.0;
	sn_articulation_id one;
	assert_sn_ok(sn_create_articulation(world, &ad, spin, 2, &one));
	double r;
	assert_sn_ok(sn_articulation_compute_response(world, one, 0, 0, &r));
	double expected_one = 1.0 / (0.1 + 2.0 * 0.25 + 0.3 + dt * 40.0);
	assert_near(r, expected_one, 1e-14 * expected_one, "r = 1 / (I + J + h b)");
	sn_world_destroy(world);
}

// A base with two branches of two hinged links each (dofs 0, 1 on one branch and 2, 3 on the other), all
// hinges about world y so that the branches couple through a floating base.
static sn_articulation_id make_two_branches(sn_world* world, bool fixed_base)
{
	sn_link_def links[5];
	links[0] = sn_default_link_def();
	links[0].mass = 3.0;
	links[0].inertia = sn_inertia_box(3.0, sn_v3(0.2, 0.2, 0.2));
	sn_mat33 rod = sn_inertia_box(1.0, sn_v3(0.25, 0.05, 0.05));
	links[1] = hinge_link(0, sn_v3(0.2, 0, 0), 1.0, 0.25, rod);
	links[2] = hinge_link(1, sn_v3(0.5, 0, 0), 1.0, 0.25, rod);
	links[3] = hinge_link(0, sn_v3(-0.2, 0.3, 0), 1.0, 0.25, rod);
	links[4] = hinge_link(3, sn_v3(0.5, 0, 0), 1.0, 0.25, rod);
	sn_articulation_def ad = sn_default_articulation_def();
	ad.fixed_base = fixed_base;
	sn_articulation_id id;
	assert_sn_ok(sn_create_articulation(world, &ad, links, 5, &id));
	return id;
}

static void test_response_across_roots(void** state)
{
	(void)state;
	sn_world* world = make_world(SN_SOLVER_PGS, 0.001);
	sn_articulation_id fixed = make_two_branches(world, true);
	sn_articulation_id floating = make_two_branches(world, false);
	for (int i = 0; i < 4; ++i)
	{
		for (int j = 0; j < 4; ++j)
		{
			double rf, rfl, rfl_t;
			assert_sn_ok(sn_articulation_compute_response(world, fixed, i, j, &rf));
			assert_sn_ok(sn_articulation_compute_response(world, floating, i, j, &rfl));
			assert_sn_ok(sn_articulation_compute_response(world, floating, j, i, &rfl_t));
			bool same_branch = (i < 2) == (j < 2);
			if (!same_branch)
			{
				// The path from one branch to the other crosses the fixed root: nothing propagates, and
				// the recursion multiplies by exact zeros.
				if (rf != 0.0)
				{
					fail_msg("r_%d%d = %.17g across a fixed root, expected exactly 0", i, j, rf);
				}
				// Through a floating base the impulse moves the base and so the other branch.
				assert_true(fabs(rfl) > 1e-3);
			}
			else
			{
				assert_true(fabs(rf) > 1e-3);
			}
			// M^-1 is symmetric; the recursion's two triangles agree to rounding.
			assert_near(rfl, rfl_t, 1e-12 * fabs(rfl) + 1e-15, "r_ij = r_ji");
		}
	}
	sn_world_destroy(world);
}

// ---- hard mimic joints ------------------------------------------------------------------------------

// Worst |C| over `seconds` of a G = -2, gamma = 0.1 pair on the given dofs, the leader (dof a) driven by
// 5 sin(2 pi t) N*m (or N).
static double run_pair(sn_world* world, sn_articulation_id id, int a, int b, double seconds, sn_mimic_id* out)
{
	sn_mimic_def md = sn_default_mimic_def();
	md.articulation = id;
	md.dofs[0] = a;
	md.dofs[1] = b;
	md.gearing[1] = -2.0;
	md.offset = 0.1;
	// Start on the constraint: q_b = (q_a + 0.1) / 2.
	assert_sn_ok(sn_articulation_set_joint_position(world, id, b,
													0.5 * (sn_articulation_get_joint_position(world, id, a) + 0.1)));
	sn_mimic_id m;
	assert_sn_ok(sn_create_mimic_joint(world, &md, &m));
	double dt = sn_world_get_time_step(world), worst = 0.0;
	int steps = (int)(seconds / dt + 0.5);
	for (int i = 0; i < steps; ++i)
	{
		assert_sn_ok(sn_articulation_apply_joint_force(world, id, a, 5.0 * sin(2.0 * SN_PI * i * dt)));
		assert_sn_ok(sn_world_step(world));
		worst = fmax(worst, fabs(sn_mimic_joint_get_error(world, m)));
	}
	if (out != NULL)
	{
		*out = m;
	}
	return worst;
}

static void test_mimic_pair_error_bound(void** state)
{
	(void)state;
	const sn_solver solvers[2] = { SN_SOLVER_PGS, SN_SOLVER_TGS };
	const double dts[2] = { 0.001, 1.0 / 60.0 };
	for (int s = 0; s < 2; ++s)
	{
		for (int d = 0; d < 2; ++d)
		{
			// A two-link chain under gravity (dof 0 the shoulder leads dof 1 the elbow).
			sn_world* world = make_world(solvers[s], dts[d]);
			sn_link_def links[3];
			links[0] = sn_default_link_def();
			sn_mat33 rod = sn_inertia_box(1.0, sn_v3(0.25, 0.05, 0.05));
			links[1] = hinge_link(0, sn_v3(0, 0, 0), 1.0, 0.25, rod);
			links[2] = hinge_link(1, sn_v3(0.5, 0, 0), 1.0, 0.25, rod);
			sn_articulation_def ad = sn_default_articulation_def();
			sn_articulation_id id;
			assert_sn_ok(sn_create_articulation(world, &ad, links, 3, &id));
			sn_mimic_id m;
			double worst = run_pair(world, id, 0, 1, 5.0, &m);
			// Measured 8.9e-16 rad (1 ms) and 4.4e-16 rad (1/60 s), PGS and TGS (file header).
			assert_below(worst, 1e-12, "hard mimic error stays at rounding (measured < 1e-15 rad)");
			// The coupling force is the dof-0 impulse over the step: finite and not trivially zero.
			double f = sn_mimic_joint_get_force(world, m);
			assert_true(isfinite(f) && fabs(f) > 1e-3);
			sn_world_destroy(world);
		}
	}
}

static void test_mimic_across_subtrees(void** state)
{
	(void)state;
	for (int fixed = 0; fixed < 2; ++fixed)
	{
		sn_world* world = make_world(SN_SOLVER_TGS, 0.001);
		sn_articulation_id id = make_two_branches(world, fixed != 0);
		// Elbow of one branch (dof 1) leads the shoulder of the other (dof 2): r_12 = 0 through a fixed
		// root, so J M^-1 J^T = r_11 + G^2 r_22; through a floating one the cross terms enter.
		double worst = run_pair(world, id, 1, 2, 3.0, NULL);
		assert_below(worst, 1e-12, "mimic across sub-trees stays at rounding (file header)");
		sn_world_destroy(world);
	}
}

static void test_mimic_n_dofs(void** state)
{
	(void)state;
	// q_0 + 0.5 q_1 - 1.5 q_2 + 0.2 = 0 over three joints of a chain, leader driven.
	sn_world* world = make_world(SN_SOLVER_PGS, 0.002);
	sn_link_def links[4];
	links[0] = sn_default_link_def();
	sn_mat33 rod = sn_inertia_box(1.0, sn_v3(0.25, 0.05, 0.05));
	for (int i = 1; i <= 3; ++i)
	{
		links[i] = hinge_link(i - 1, i == 1 ? sn_v3(0, 0, 0) : sn_v3(0.5, 0, 0), 1.0, 0.25, rod);
	}
	links[3].initial_position[0] = 0.2 / 1.5; // on the constraint at q = 0
	sn_articulation_def ad = sn_default_articulation_def();
	sn_articulation_id id;
	assert_sn_ok(sn_create_articulation(world, &ad, links, 4, &id));
	sn_mimic_def md = sn_default_mimic_def();
	md.articulation = id;
	md.dof_count = 3;
	md.dofs[0] = 0;
	md.dofs[1] = 1;
	md.dofs[2] = 2;
	md.gearing[1] = 0.5;
	md.gearing[2] = -1.5;
	md.offset = 0.2;
	sn_mimic_id m;
	assert_sn_ok(sn_create_mimic_joint(world, &md, &m));
	assert_near(sn_mimic_joint_get_error(world, m), 0.0, 1e-15, "starts on the constraint");
	double worst = 0.0;
	for (int i = 0; i < 2000; ++i)
	{
		assert_sn_ok(sn_articulation_apply_joint_force(world, id, 0, 3.0 * sin(3.0 * i * 0.002)));
		assert_sn_ok(sn_world_step(world));
		worst = fmax(worst, fabs(sn_mimic_joint_get_error(world, m)));
	}
	assert_below(worst, 1e-12, "N-dof mimic (one row, eq. 18) stays at rounding");
	// Two free dofs remain: the chain still moves.
	assert_true(fabs(sn_articulation_get_joint_velocity(world, id, 1)) > 1e-3);
	sn_world_destroy(world);
}

// Two vertical sliders side by side on a fixed base, masses ma and mb.
static sn_articulation_id make_two_sliders(sn_world* world, double ma, double mb)
{
	sn_link_def links[3];
	links[0] = sn_default_link_def();
	for (int i = 1; i <= 2; ++i)
	{
		links[i] = sn_default_link_def();
		links[i].parent = 0;
		links[i].joint_type = SN_LINK_JOINT_PRISMATIC;
		links[i].parent_frame.p = sn_v3(i == 1 ? -0.5 : 0.5, 0, 0);
		links[i].parent_frame.q = quat_x_to_z();
		links[i].child_frame.q = quat_x_to_z();
		links[i].mass = i == 1 ? ma : mb;
	}
	sn_articulation_def ad = sn_default_articulation_def();
	sn_articulation_id id;
	assert_sn_ok(sn_create_articulation(world, &ad, links, 3, &id));
	return id;
}

static void test_mimic_prismatic_and_force_readback(void** state)
{
	(void)state;
	const sn_solver solvers[2] = { SN_SOLVER_PGS, SN_SOLVER_TGS };
	for (int s = 0; s < 2; ++s)
	{
		// Slider A (2 kg) mimics slider B (3 kg) with q_A - 2 q_B = 0: a lever. Free fall together: with
		// the workless coupling, energy gives (m_A 4 + m_B) a_B = -(2 m_A + m_B) g.
		sn_world* world = make_world(solvers[s], 0.001);
		sn_articulation_id id = make_two_sliders(world, 2.0, 3.0);
		sn_mimic_def md = sn_default_mimic_def();
		md.articulation = id;
		md.dofs[0] = 0;
		md.dofs[1] = 1;
		md.gearing[1] = -2.0;
		sn_mimic_id m;
		assert_sn_ok(sn_create_mimic_joint(world, &md, &m));
		for (int i = 0; i < 100; ++i)
		{
			assert_sn_ok(sn_world_step(world));
		}
		double ab = -(2.0 * 2.0 + 3.0) * artic_g / (2.0 * 4.0 + 3.0);
		assert_near(sn_articulation_get_joint_velocity(world, id, 1), ab * 0.1, 1e-12, "lever: coupled fall");
		assert_near(sn_articulation_get_joint_velocity(world, id, 0), 2.0 * ab * 0.1, 1e-12, "lever: A moves 2x");
		assert_below(fabs(sn_mimic_joint_get_error(world, m)), 1e-12, "prismatic mimic at rounding");
		// Force on A: m_A (a_A + g) = f (dof 0 receives f, dof 1 receives G f).
		double f = 2.0 * (2.0 * ab + artic_g);
		assert_near(sn_mimic_joint_get_force(world, m), f, 1e-9 * fabs(f), "coupling force read back");
		sn_world_destroy(world);
	}
}

static void test_mimic_force_limit(void** state)
{
	(void)state;
	const sn_solver solvers[2] = { SN_SOLVER_PGS, SN_SOLVER_TGS };
	for (int s = 0; s < 2; ++s)
	{
		// The same lever, but B (dof 1) is held by a stiff drive and the coupling may push on A with at
		// most 5 N: A (2 kg, 19.6 N of weight) slips down at (m_A g - 5) / m_A while the force reads 5 N.
		sn_world* world = make_world(solvers[s], 0.001);
		sn_articulation_id id = make_two_sliders(world, 2.0, 3.0);
		sn_drive hold = sn_default_drive();
		hold.enabled = true;
		hold.stiffness = 1e6;
		hold.damping = 1e4;
		assert_sn_ok(sn_articulation_set_drive(world, id, 1, &hold));
		sn_mimic_def md = sn_default_mimic_def();
		md.articulation = id;
		md.dofs[0] = 0;
		md.dofs[1] = 1;
		md.gearing[1] = -2.0;
		md.max_force = 5.0;
		sn_mimic_id m;
		assert_sn_ok(sn_create_mimic_joint(world, &md, &m));
		for (int i = 0; i < 200; ++i)
		{
			assert_sn_ok(sn_world_step(world));
			if (i > 0)
			{
				assert_near(sn_mimic_joint_get_force(world, m), 5.0, 1e-9, "the limit is reached and read back");
			}
		}
		// A falls at (m g - 5) / m: exactly in PGS; TGS's first step builds the force up over its windows
		// from a zero warm start (measured 8e-4 m/s off after 0.2 s).
		double va = sn_articulation_get_joint_velocity(world, id, 0);
		assert_near(va, -(2.0 * artic_g - 5.0) / 2.0 * 0.2, 1.5e-3, "A slips under the force limit");
		assert_true(sn_mimic_joint_get_error(world, m) < -0.01); // the coupling is visibly broken
		sn_world_destroy(world);
	}
}

static void test_mimic_compliant(void** state)
{
	(void)state;
	// Zero gravity; the lever pair starts 0.05 m off its constraint with a 2 Hz, zeta = 0 compliant
	// coupling: C oscillates at 2 Hz (k = m_eff (2 pi f)^2 on the row's own effective mass).
	const double dt = 0.001, f = 2.0;
	sn_world* world = make_world(SN_SOLVER_PGS, dt);
	assert_sn_ok(sn_world_set_gravity(world, sn_v3(0, 0, 0)));
	sn_articulation_id id = make_two_sliders(world, 2.0, 3.0);
	assert_sn_ok(sn_articulation_set_joint_position(world, id, 0, 0.05));
	sn_mimic_def md = sn_default_mimic_def();
	md.articulation = id;
	md.dofs[0] = 0;
	md.dofs[1] = 1;
	md.gearing[1] = -2.0;
	md.soft = sn_soft_frequency(f, 0.0);
	sn_mimic_id m;
	assert_sn_ok(sn_create_mimic_joint(world, &md, &m));
	double previous = sn_mimic_joint_get_error(world, m), first = -1.0, period = 0.0, peak = 0.0;
	for (int i = 0; i < 1500; ++i)
	{
		assert_sn_ok(sn_world_step(world));
		double c = sn_mimic_joint_get_error(world, m);
		if (previous > 0.0 && c <= 0.0)
		{
			double t = sn_world_get_time(world) - dt * c / (c - previous);
			if (first < 0.0)
			{
				first = t;
			}
			else if (period == 0.0)
			{
				period = t - first;
			}
		}
		if (i > 1000)
		{
			peak = fmax(peak, fabs(c));
		}
		previous = c;
	}
	// Implicit Euler shifts the frequency by O((w h)^2) = 1.6e-4 (measured period 0.50003 s) and damps
	// the amplitude by about (w h)^2 / 2 = 8e-5 per step, 8% over the first 1000 steps (measured peak
	// 0.0462 m after 1 s).
	assert_near(period, 1.0 / f, 5e-4 / f, "compliant coupling oscillates at its natural frequency");
	assert_below(peak, 0.05, "implicit: never gains energy");
	assert_true(peak > 0.044); // and loses only the expected ~8%
	sn_world_destroy(world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_response_closed_forms),  cmocka_unit_test(test_response_across_roots),
		cmocka_unit_test(test_mimic_pair_error_bound), cmocka_unit_test(test_mimic_across_subtrees),
		cmocka_unit_test(test_mimic_n_dofs),           cmocka_unit_test(test_mimic_prismatic_and_force_readback),
		cmocka_unit_test(test_mimic_force_limit),      cmocka_unit_test(test_mimic_compliant),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
