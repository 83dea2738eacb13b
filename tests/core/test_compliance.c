// Compliance: the one mapping of soft.h between (k, b), (f, zeta), Faure's (c, d) and XPBD's alpha,
// the static deflection F c of a soft joint in every solver at every time step, and validation.
//
// Static deflection. Under a constant load F a soft row's fixed point is k C = -F whatever the scheme:
// implicit Euler rows (PGS/TGS) settle where the spring impulse h k C balances the load's h F; XPBD's
// "predict by F w h^2, correct by C w / (w + alpha~)" is stationary at C = F alpha; DIRECT's
// J v + D P = t with J v = 0 gives P/h = -k C for any alpha, beta (soft.h). So the deflection is F c to
// the accuracy of the settling: the scenes are critically damped (zeta = 1, omega = 22.4 rad/s), and
// after 3 s the transient has decayed by e^-60; what is left is how exactly each solver reaches its fixed
// point: DIRECT and XPBD exactly (round-off, 1e-9 relative), PGS and TGS to their iteration residual,
// which warm starting drives to round-off at rest (1e-9 relative).
#include "core_support.h"

#include "constraint/soft.h"

#include <string.h>

static const double g = 9.81;
static const sn_solver solvers[] = { SN_SOLVER_PGS, SN_SOLVER_TGS, SN_SOLVER_XPBD, SN_SOLVER_DIRECT };
static const double steps_per_s[] = { 60.0, 240.0, 1000.0 };

// Critically damped (zeta = 1) on a 2 kg body: c = 1e-3 m/N, k = 1000 N/m, omega = sqrt(k/m) = 22.4 rad/s,
// b = 2 sqrt(k m) = 89.4 N*s/m, d = b c = 0.0894 s.
static const double mass = 2.0, compliance = 1e-3;

static double damping_time(void)
{
	return 2.0 * sqrt(mass / compliance) * compliance;
}

static void settle(sn_world* world, double seconds, sn_body_id body, sn_vec3 torque)
{
	int steps = (int)(seconds / sn_world_get_time_step(world) + 0.5);
	for (int i = 0; i < steps; ++i)
	{
		if (torque.x != 0.0 || torque.y != 0.0 || torque.z != 0.0)
		{
			assert_sn_ok(sn_body_apply_torque(world, body, torque));
		}
		assert_sn_ok(sn_world_step(world));
	}
}

static sn_body_id add_body(sn_world* world, sn_vec3 at, double m, sn_mat33 inertia)
{
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = at;
	bd.mass = m;
	bd.inertia = inertia;
	sn_body_id id;
	assert_sn_ok(sn_create_body(world, &bd, &id));
	return id;
}

// A body on a vertical prismatic joint (x axis up) held by a spring at 0 under gravity: the coordinate.
static double prismatic_deflection(sn_solver solver, double dt, sn_soft soft)
{
	sn_world* world = test_scene_world(solver, dt);
	sn_body_id body = add_body(world, sn_v3(0, 0, 0), mass, sn_inertia_sphere(mass, 0.1));
	sn_prismatic_joint_def pd = sn_default_prismatic_joint_def();
	sn_quat x_to_z = sn_quat_from_axis_angle(sn_v3(0, 1, 0), -0.5 * SN_PI);
	pd.base.body_b = body;
	pd.base.frame_a.q = x_to_z;
	pd.base.frame_b.q = x_to_z;
	pd.spring.enabled = true;
	pd.spring.target = 0.0;
	pd.spring.soft = soft;
	sn_joint_id j;
	assert_sn_ok(sn_create_prismatic_joint(world, &pd, &j));
	settle(world, 3.0, body, sn_v3(0, 0, 0));
	double x = sn_joint_get_coordinate(world, j, SN_AXIS_X);
	sn_world_destroy(world);
	return x;
}

// A wheel on a hinge (axis y) with a torsion spring at 0, twisted by 0.5 N*m, no gravity: the angle.
static double hinge_deflection(sn_solver solver, double dt, sn_soft soft, double inertia)
{
	sn_world* world = test_scene_world(solver, dt);
	assert_sn_ok(sn_world_set_gravity(world, sn_v3(0, 0, 0)));
	sn_body_id wheel = add_body(world, sn_v3(0, 0, 0), mass, sn_mat33_diag(inertia, inertia, inertia));
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
	hd.base.body_b = wheel;
	hd.base.frame_a.q = x_to_y;
	hd.base.frame_b.q = x_to_y;
	hd.spring.enabled = true;
	hd.spring.soft = soft;
	sn_joint_id j;
	assert_sn_ok(sn_create_hinge_joint(world, &hd, &j));
	settle(world, 3.0, wheel, sn_v3(0, 0.5, 0));
	double theta = sn_joint_get_coordinate(world, j, SN_AXIS_RX);
	sn_world_destroy(world);
	return theta;
}

// A body held at its centre by a fixed joint whose locks are soft, under gravity: the Z coordinate.
static double soft_lock_deflection(sn_solver solver, double dt, sn_soft soft)
{
	sn_world* world = test_scene_world(solver, dt);
	sn_body_id body = add_body(world, sn_v3(0, 0, 0), mass, sn_inertia_sphere(mass, 0.1));
	sn_fixed_joint_def fd = sn_default_fixed_joint_def();
	fd.base.body_b = body;
	fd.base.lock_soft = soft;
	sn_joint_id j;
	assert_sn_ok(sn_create_fixed_joint(world, &fd, &j));
	settle(world, 3.0, body, sn_v3(0, 0, 0));
	double z = sn_joint_get_coordinate(world, j, SN_AXIS_Z);
	sn_world_destroy(world);
	return z;
}

// A body hanging 1 m below the world on a distance spring: the stretch.
static double distance_deflection(sn_solver solver, double dt, sn_soft soft)
{
	sn_world* world = test_scene_world(solver, dt);
	sn_body_id body = add_body(world, sn_v3(0, 0, -1), mass, sn_inertia_sphere(mass, 0.1));
	sn_distance_joint_def dd = sn_default_distance_joint_def();
	dd.base.body_b = body;
	dd.length = 1.0;
	dd.spring_enabled = true;
	dd.spring = soft;
	sn_joint_id j;
	assert_sn_ok(sn_create_distance_joint(world, &dd, &j));
	settle(world, 3.0, body, sn_v3(0, 0, 0));
	double stretch = sn_joint_get_coordinate(world, j, SN_AXIS_X) - 1.0;
	sn_world_destroy(world);
	return stretch;
}

static void test_deflection_is_load_times_compliance(void** state)
{
	(void)state;
	double c = compliance, d = damping_time();
	double weight = mass * g; // N
	for (size_t s = 0; s < sizeof(solvers) / sizeof(solvers[0]); ++s)
	{
		for (size_t t = 0; t < sizeof(steps_per_s) / sizeof(steps_per_s[0]); ++t)
		{
			double dt = 1.0 / steps_per_s[t];
			const char* why = "the fixed point of every scheme is k C = -F (file header): 1e-9 relative";
			double expect = -weight * c; // m
			assert_near(prismatic_deflection(solvers[s], dt, sn_soft_compliance(c, d)), expect, 1e-9 * fabs(expect),
						why);
			assert_near(prismatic_deflection(solvers[s], dt, sn_soft_stiffness(1.0 / c, d / c)), expect,
						1e-9 * fabs(expect), why);
			assert_near(soft_lock_deflection(solvers[s], dt, sn_soft_compliance(c, d)), expect, 1e-9 * fabs(expect),
						why);
			assert_near(distance_deflection(solvers[s], dt, sn_soft_compliance(c, d)), -expect, 1e-9 * fabs(expect),
						why);
			// Torsion: inertia 0.1 kg*m^2 and c = 0.02 rad/(N*m) keep omega = 22.4 rad/s; d critical.
			double ca = 0.02, inertia = 0.1, da = 2.0 * sqrt(inertia / ca) * ca;
			double angle = 0.5 * ca; // rad
			assert_near(hinge_deflection(solvers[s], dt, sn_soft_compliance(ca, da), inertia), angle, 1e-9 * angle,
						why);
			// Frequency form: k = m_eff omega^2 with m_eff = m for this row (no lever): x = -g / omega^2.
			double f = 3.0, omega = 2.0 * SN_PI * f;
			assert_near(prismatic_deflection(solvers[s], dt, sn_soft_frequency(f, 1.0)), -g / (omega * omega),
						1e-9 * g / (omega * omega), why);
		}
	}
}

static void test_mapping_round_trips(void** state)
{
	(void)state;
	// (c, d) -> (k, b): k = 1/c, b = d/c; and back.
	double k, b, c, d;
	assert_true(soft_spring_constants(sn_soft_compliance(2e-3, 0.05), 1.0, &k, &b));
	assert_near(k, 500.0, 1e-12, "k = 1/c");
	assert_near(b, 25.0, 1e-12, "b = d/c");
	assert_true(soft_compliance_of(sn_soft_stiffness(500.0, 25.0), 1.0, &c, &d));
	assert_near(c, 2e-3, 1e-18, "c = 1/k");
	assert_near(d, 0.05, 1e-15, "d = b/k");
	// (f, zeta) with m_eff = 1/K = 4 kg: k = m w^2, b = 2 m zeta w, so c = 1/(m w^2), d = 2 zeta / w.
	double w = 2.0 * SN_PI * 5.0;
	assert_true(soft_compliance_of(sn_soft_frequency(5.0, 0.7), 0.25, &c, &d));
	assert_near(c, 1.0 / (4.0 * w * w), 1e-15, "c of the frequency form");
	assert_near(d, 1.4 / w, 1e-15, "d = 2 zeta / w");
	// Compliance 0 is a hard row in every solver; a pure damper has c = infinity.
	assert_false(soft_spring_constants(sn_soft_compliance(0.0, 0.3), 1.0, &k, &b));
	assert_true(soft_compliance_of(sn_soft_stiffness(0.0, 3.0), 1.0, &c, &d));
	assert_true(isinf(c));
	// XPBD: alpha~ = c / h^2 and the dashpot compliance 1 / (h b).
	double at, dc, h = 0.002;
	assert_true(soft_xpbd_for(sn_soft_compliance(2e-3, 0.05), 1.0, h, &at, &dc));
	assert_near(at, 2e-3 / (h * h), 1e-9, "alpha~ = alpha / h^2");
	assert_near(dc, 1.0 / (h * 25.0), 1e-12, "1 / (h b)");
}

// DIRECT with alpha = beta = 1 is the PGS/TGS implicit Euler row (soft.h): same compliance and bias.
static void test_direct_matches_implicit_euler_rows(void** state)
{
	(void)state;
	sn_soft soft = sn_soft_compliance(4e-4, 0.02);
	double K = 0.7, h = 1.0 / 240.0;
	soft_coefficients pc;
	soft_direct dc;
	assert_true(soft_coefficients_for(soft, K, h, 0.0, &pc));
	assert_true(soft_direct_for(soft, K, h, 1.0, 1.0, &dc));
	double gamma = pc.impulse_scale / pc.eff_mass; // impulse_scale = gamma / (K + gamma), eff_mass = 1 / (K + gamma)
	assert_near(dc.compliance, gamma, 1e-12 * gamma, "D = gamma = c / (h (h + d))");
	assert_near(-dc.phi_coef, pc.bias_rate, 1e-12 * pc.bias_rate, "t = -C / (h + d) = -bias_rate C");
	assert_near(dc.phidot_coef, 0.0, 1e-15, "alpha = beta = 1: no Cdot_n term");
	// Trapezoidal alpha = 1/2 keeps half the old rate in the target: (b (alpha - 1)) / a.
	assert_true(soft_direct_for(soft, K, h, 0.5, 1.0, &dc));
	double k = 1.0 / 4e-4, b = 0.02 / 4e-4, a = 0.5 * (h * k + b);
	assert_near(dc.phidot_coef, -0.5 * b / a, 1e-12, "Faure's compliant plugin, eq. 13 with alpha = 1/2");
}

// Compliance 0 is a hard row (Faure's compliant plugin), the same as rigid in every solver: same bits.
static uint64_t hash_with_lock_soft(sn_solver solver, sn_soft soft)
{
	sn_world* world = test_scene_world(solver, 0.001);
	sn_body_id body = add_body(world, sn_v3(0.5, 0, 0), mass, sn_inertia_sphere(mass, 0.1));
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	hd.base.body_b = body;
	hd.base.frame_b.p = sn_v3(-0.5, 0, 0);
	hd.base.lock_soft = soft;
	hd.limit = (sn_limit){ true, -0.3, 0.3, soft };
	sn_joint_id j;
	assert_sn_ok(sn_create_hinge_joint(world, &hd, &j));
	settle(world, 0.3, body, sn_v3(0, 0, 0));
	uint64_t h = sn_world_state_hash(world);
	sn_world_destroy(world);
	return h;
}

static void test_zero_compliance_is_rigid(void** state)
{
	(void)state;
	for (size_t s = 0; s < sizeof(solvers) / sizeof(solvers[0]); ++s)
	{
		assert_true(hash_with_lock_soft(solvers[s], sn_soft_compliance(0.0, 0.5)) ==
					hash_with_lock_soft(solvers[s], sn_soft_rigid()));
	}
}

// Bad compliance values are rejected with a typed error, and the world does not change.
static void test_bad_compliance_rejected(void** state)
{
	(void)state;
	sn_world* world = test_scene_world(SN_SOLVER_XPBD, 0.001);
	sn_body_def bd = sn_default_body_def();
	sn_body_id body;
	assert_sn_ok(sn_create_body(world, &bd, &body));
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	hd.base.body_b = body;
	struct
	{
		sn_soft soft;
		sn_error error;
	} bad[] = {
		{ sn_soft_compliance(-1e-3, 0.0), SN_ERR_NEGATIVE_VALUE },
		{ sn_soft_compliance(NAN, 0.0), SN_ERR_NOT_FINITE },
		{ sn_soft_compliance(INFINITY, 0.0), SN_ERR_NOT_FINITE },
		{ sn_soft_compliance(1e-3, -0.1), SN_ERR_NEGATIVE_VALUE },
		{ sn_soft_compliance(1e-3, NAN), SN_ERR_NOT_FINITE },
	};
	sn_joint_id j;
	assert_sn_ok(sn_create_hinge_joint(world, &hd, &j));
	uint64_t hash = sn_world_state_hash(world);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i)
	{
		sn_hinge_joint_def def = hd;
		def.base.lock_soft = bad[i].soft;
		sn_joint_id other;
		assert_sn_error(sn_create_hinge_joint(world, &def, &other), bad[i].error);
		def = hd;
		def.spring.enabled = true;
		def.spring.soft = bad[i].soft;
		assert_sn_error(sn_create_hinge_joint(world, &def, &other), bad[i].error);
		assert_sn_error(sn_joint_set_lock_soft(world, j, bad[i].soft), bad[i].error);
		sn_spring spring = { true, 0.0, bad[i].soft, INFINITY };
		assert_sn_error(sn_joint_set_spring(world, j, SN_AXIS_RX, spring), bad[i].error);
		sn_limit limit = { true, -0.5, 0.5, bad[i].soft };
		assert_sn_error(sn_joint_set_limit(world, j, SN_AXIS_RX, limit), bad[i].error);
		assert_true(strlen(sn_world_last_error_detail(world)) > 0);
	}
	assert_int_equal(sn_world_get_joint_count(world), 1);
	assert_int_equal(sn_joint_get_lock_soft(world, j).kind, SN_SOFT_RIGID);
	assert_false(sn_joint_get_spring(world, j, SN_AXIS_RX).enabled);
	assert_false(sn_joint_get_limit(world, j, SN_AXIS_RX).enabled);
	assert_true(sn_world_state_hash(world) == hash);
	sn_world_destroy(world);
}

// The implicit factors of DIRECT: validated, with setters that change nothing on failure.
static void test_implicit_factors_validated(void** state)
{
	(void)state;
	sn_world_def wd = sn_default_world_def();
	assert_near(wd.implicit_alpha, 1.0, 0.0, "default: backward Euler");
	assert_near(wd.implicit_beta, 1.0, 0.0, "default: positions from the end velocity");
	sn_world* world = test_scene_world(SN_SOLVER_DIRECT, 0.001);
	assert_sn_error(sn_world_set_implicit_factors(world, NAN, 1.0), SN_ERR_NOT_FINITE);
	assert_sn_error(sn_world_set_implicit_factors(world, 0.3, 1.0), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_world_set_implicit_factors(world, 1.0, 1.5), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_world_set_implicit_factors(world, 1.0, -INFINITY), SN_ERR_NOT_FINITE);
	assert_near(sn_world_get_implicit_alpha(world), 1.0, 0.0, "unchanged after a rejected call");
	assert_near(sn_world_get_implicit_beta(world), 1.0, 0.0, "unchanged after a rejected call");
	assert_sn_ok(sn_world_set_implicit_factors(world, 0.5, 0.75));
	assert_near(sn_world_get_implicit_alpha(world), 0.5, 0.0, "set");
	assert_near(sn_world_get_implicit_beta(world), 0.75, 0.0, "set");
	wd.implicit_beta = 0.2;
	char detail[128];
	assert_sn_error(sn_world_def_check(&wd, detail, sizeof(detail)), SN_ERR_INVALID_ARGUMENT);
	sn_world_destroy(world);
}

// The static deflection with trapezoidal factors in DIRECT: the fixed point does not depend on them.
static void test_direct_deflection_any_factors(void** state)
{
	(void)state;
	sn_world* world = test_scene_world(SN_SOLVER_DIRECT, 1.0 / 120.0);
	assert_sn_ok(sn_world_set_implicit_factors(world, 0.6, 0.8));
	sn_body_id body = add_body(world, sn_v3(0, 0, -1), mass, sn_inertia_sphere(mass, 0.1));
	sn_distance_joint_def dd = sn_default_distance_joint_def();
	dd.base.body_b = body;
	dd.length = 1.0;
	dd.spring_enabled = true;
	dd.spring = sn_soft_compliance(compliance, damping_time());
	sn_joint_id j;
	assert_sn_ok(sn_create_distance_joint(world, &dd, &j));
	settle(world, 6.0, body, sn_v3(0, 0, 0));
	double stretch = sn_joint_get_coordinate(world, j, SN_AXIS_X) - 1.0;
	double expect = mass * g * compliance;
	// alpha < 1 damps less than backward Euler, so the transient is given twice the time; 1e-9 relative.
	assert_near(stretch, expect, 1e-9 * expect, "D P = t at rest gives P/h = -k C for any alpha, beta");
	sn_world_destroy(world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mapping_round_trips),
		cmocka_unit_test(test_direct_matches_implicit_euler_rows),
		cmocka_unit_test(test_deflection_is_load_times_compliance),
		cmocka_unit_test(test_direct_deflection_any_factors),
		cmocka_unit_test(test_zero_compliance_is_rigid),
		cmocka_unit_test(test_bad_compliance_rejected),
		cmocka_unit_test(test_implicit_factors_validated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
