// Limits, motors, springs, forces out, breaking, enabling and soft locks, against closed forms.
//
// Scenes are single bodies on one joint to the world, so every expected number is a closed form:
//   - a rigid limit is a speculative unilateral row: a body moving onto it is stopped at the bound to
//     the curvature of its path over one solve, and not bounced back;
//   - an implicit soft row at rest balances its load exactly: deflection F / k, whatever the step;
//   - a motor whose cap is not reached sets the axis speed in one solve; a capped motor applies its cap
//     every solve, so the axis accelerates at exactly max_force / (effective mass of the axis);
//   - a body at rest on a joint is held by a reaction equal and opposite to its weight.
#include "core_support.h"

static const double dt = 0.001;
static const double g = 9.81;
static const sn_solver solvers[2] = { SN_SOLVER_PGS, SN_SOLVER_TGS };

// Solve length of a world with default iterations: PGS h, TGS h / 8.
static double solve_length(sn_solver solver, double step)
{
	return solver == SN_SOLVER_TGS ? step / 8.0 : step;
}

// A hinge about world y at the origin holding a bob of mass m on an arm of length r along +x (released
// horizontal; the hinge angle grows as the bob swings down under gravity -z).
static sn_joint_id pendulum(sn_world* world, double mass, double bob_inertia, double arm,
							const sn_hinge_joint_def* extra, sn_body_id* bob)
{
	*bob = test_body(world, sn_v3(arm, 0, 0), mass, sn_mat33_diag(bob_inertia, bob_inertia, bob_inertia));
	sn_hinge_joint_def hd = extra != NULL ? *extra : sn_default_hinge_joint_def();
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
	hd.base.body_b = *bob;
	hd.base.frame_a.q = x_to_y;
	hd.base.frame_b = (sn_transform){ sn_v3(-arm, 0, 0), x_to_y };
	sn_joint_id joint;
	assert_sn_ok(sn_create_hinge_joint(world, &hd, &joint));
	return joint;
}

// ---- hard limits -------------------------------------------------------------------------------------

// A point-like bob (I = 4e-5 kg*m^2 about its centre, 1 kg on a 1 m arm) swings down onto a 0.5 rad
// stop at 3 rad/s. The stop holds to the curvature of one solve, (w h)^2 ~ 1e-5 rad, and the bob stays on
// it (no bounce: the speculative row only removes the approach speed). Before the free-axis rows were
// projected out of the locks (joint.h) this bob reached 0.69 rad and bounced back to 0.2 rad.
static void test_hinge_limit_on_a_lever(void** state)
{
	(void)state;
	for (int s = 0; s < 2; ++s)
	{
		sn_world* world = test_world(solvers[s], dt, sn_v3(0, 0, -g));
		sn_hinge_joint_def hd = sn_default_hinge_joint_def();
		hd.limit = (sn_limit){ true, -0.5, 0.5, sn_soft_rigid() };
		sn_body_id bob;
		sn_joint_id joint = pendulum(world, 1.0, 4e-5, 1.0, &hd, &bob);
		double highest = -INFINITY, lowest_after = INFINITY;
		bool touched = false;
		for (int i = 0; i < 2000; ++i)
		{
			assert_sn_ok(sn_world_step(world));
			// The angle read from the poses: the bob's position about the hinge axis y.
			sn_vec3 p = sn_body_get_center_of_mass(world, bob);
			double angle = atan2(-p.z, p.x);
			highest = fmax(highest, angle);
			touched = touched || angle > 0.5 - 1e-6;
			if (touched)
			{
				lowest_after = fmin(lowest_after, angle);
			}
		}
		report_measure("hinge stop overshoot (rad)", highest - 0.5);
		report_measure("hinge stop: lowest angle after contact (rad)", lowest_after);
		assert_below(highest - 0.5, 1e-4, "speculative limit: curvature (w h)^2 of one solve");
		assert_near(lowest_after, 0.5, 1e-4, "an inelastic stop: no bounce");
		assert_near(sn_joint_get_coordinate(world, joint, SN_AXIS_RX), 0.5, 1e-6, "rests on the stop");
		sn_world_destroy(world);
	}
}

// A slider along world -z with its upper stop 0.3 m below the start: the body falls onto it at
// sqrt(2 g 0.3) = 2.4 m/s and stops there. A straight path has no curvature: exact to rounding.
static void test_prismatic_limit(void** state)
{
	(void)state;
	for (int s = 0; s < 2; ++s)
	{
		sn_world* world = test_world(solvers[s], dt, sn_v3(0, 0, -g));
		sn_body_id body = test_body(world, sn_v3(0, 0, 0), 2.0, sn_inertia_box(2.0, sn_v3(0.1, 0.1, 0.1)));
		sn_prismatic_joint_def pd = sn_default_prismatic_joint_def();
		sn_quat down = sn_quat_from_axis_angle(sn_v3(0, 1, 0), 0.5 * SN_PI);
		pd.base.body_b = body;
		pd.base.frame_a.q = down;
		pd.base.frame_b.q = down;
		pd.limit = (sn_limit){ true, -0.1, 0.3, sn_soft_rigid() };
		sn_joint_id joint;
		assert_sn_ok(sn_create_prismatic_joint(world, &pd, &joint));
		double deepest = 0.0;
		for (int i = 0; i < 1000; ++i)
		{
			assert_sn_ok(sn_world_step(world));
			deepest = fmax(deepest, -sn_body_get_center_of_mass(world, body).z);
		}
		report_measure("slider stop overshoot (m)", deepest - 0.3);
		assert_below(deepest - 0.3, 1e-12, "straight path onto a speculative stop: rounding only");
		assert_near(sn_joint_get_coordinate(world, joint, SN_AXIS_X), 0.3, 1e-12, "rests on the stop");
		assert_below(sn_length(sn_body_get_linear_velocity(world, body)), 1e-9, "at rest: no bounce");
		sn_world_destroy(world);
	}
}

// ---- soft limits and springs: static deflection F / k ---------------------------------------------

// The slider of the previous test on a soft stop k = 5000 N/m, c = 100 N*s/m (damping ratio 0.5 for
// 2 kg): rests at 0.3 + m g / k. At rest the implicit row balances m g exactly, so the residual is the
// decay exp(-zeta w t) = exp(-25 t) of the impact, nothing after 3 s, and the step does not matter.
static void test_soft_limit_deflection(void** state)
{
	(void)state;
	const double steps[3] = { 0.0005, 0.002, 0.01 };
	for (int s = 0; s < 2; ++s)
	{
		for (int k = 0; k < 3; ++k)
		{
			sn_world* world = test_world(solvers[s], steps[k], sn_v3(0, 0, -g));
			sn_body_id body = test_body(world, sn_v3(0, 0, 0), 2.0, sn_inertia_box(2.0, sn_v3(0.1, 0.1, 0.1)));
			sn_prismatic_joint_def pd = sn_default_prismatic_joint_def();
			sn_quat down = sn_quat_from_axis_angle(sn_v3(0, 1, 0), 0.5 * SN_PI);
			pd.base.body_b = body;
			pd.base.frame_a.q = down;
			pd.base.frame_b.q = down;
			pd.limit = (sn_limit){ true, -0.1, 0.3, sn_soft_stiffness(5000.0, 100.0) };
			sn_joint_id joint;
			assert_sn_ok(sn_create_prismatic_joint(world, &pd, &joint));
			int n = (int)(3.0 / steps[k] + 0.5);
			for (int i = 0; i < n; ++i)
			{
				assert_sn_ok(sn_world_step(world));
			}
			double x = sn_joint_get_coordinate(world, joint, SN_AXIS_X);
			report_measure("soft stop deflection error (m)", x - (0.3 + 2.0 * g / 5000.0));
			assert_near(x, 0.3 + 2.0 * g / 5000.0, 1e-9, "implicit soft row at rest: F / k exactly");
			sn_world_destroy(world);
		}
	}
}

// A hinge spring (a servo to angle 0 with k = 200 N*m/rad, c = 10 N*m*s/rad) holding a 1 kg bob on a
// 1 m arm out against gravity: it rests where k theta = m g r cos(theta) (theta = 0.04677 rad, by
// fixed-point iteration). Same exactness at rest; the damping ratio 0.35 on I = 1 kg*m^2 decays as
// exp(-5 t), 1e-11 of the start after 5 s.
static void test_spring_deflection(void** state)
{
	(void)state;
	double theta = 0.0;
	for (int i = 0; i < 100; ++i)
	{
		theta = g * cos(theta) / 200.0;
	}
	for (int s = 0; s < 2; ++s)
	{
		sn_world* world = test_world(solvers[s], dt, sn_v3(0, 0, -g));
		sn_hinge_joint_def hd = sn_default_hinge_joint_def();
		hd.spring = (sn_spring){ true, 0.0, sn_soft_stiffness(200.0, 10.0), INFINITY };
		sn_body_id bob;
		sn_joint_id joint = pendulum(world, 1.0, 4e-5, 1.0, &hd, &bob);
		for (int i = 0; i < 5000; ++i)
		{
			assert_sn_ok(sn_world_step(world));
		}
		double angle = sn_joint_get_coordinate(world, joint, SN_AXIS_RX);
		report_measure("spring static angle error (rad)", angle - theta);
		assert_near(angle, theta, 1e-9, "k theta = m g r cos(theta) at rest");
		sn_world_destroy(world);
	}
}

// A rigid spring is a position servo; with a force cap it holds what it can. The pendulum's arm held
// horizontal (target angle 0) by a servo capped at twice the load's moment m g r: it stays at 0 (the
// servo's Baumgarte bias drives its error to zero at rest) and reports the moment. Capped at half the
// moment, it gives way: the arm starts down at (m g r - cap) / (I + m r^2), reached in the first step
// exactly (the servo row is saturated in every solve).
static void test_capped_servo(void** state)
{
	(void)state;
	const double mass = 1.0, arm = 1.0, inertia = 4e-5, moment = mass * g * arm;
	for (int s = 0; s < 2; ++s)
	{
		for (int weak = 0; weak < 2; ++weak)
		{
			sn_world* world = test_world(solvers[s], dt, sn_v3(0, 0, -g));
			sn_hinge_joint_def hd = sn_default_hinge_joint_def();
			double cap = weak ? 0.5 * moment : 2.0 * moment;
			hd.spring = (sn_spring){ true, 0.0, sn_soft_rigid(), cap };
			sn_body_id bob;
			sn_joint_id joint = pendulum(world, mass, inertia, arm, &hd, &bob);
			assert_sn_ok(sn_world_step(world));
			if (weak)
			{
				double accel = (moment - cap) / (inertia + mass * arm * arm);
				double speed = sn_joint_get_coordinate_speed(world, joint, SN_AXIS_RX);
				report_measure("weak servo first-step speed error (rad/s)", speed - accel * dt);
				assert_near(speed, accel * dt, 1e-9 * accel * dt, "(m g r - cap) / (I + m r^2) over one step");
				sn_world_destroy(world);
				continue;
			}
			double worst = 0.0;
			for (int i = 0; i < 1000; ++i)
			{
				assert_sn_ok(sn_world_step(world));
				worst = fmax(worst, fabs(sn_joint_get_coordinate(world, joint, SN_AXIS_RX)));
			}
			report_measure("strong servo worst angle (rad)", worst);
			assert_below(worst, 1e-9, "a rigid servo within its cap holds like a lock");
			sn_vec3 torque;
			assert_sn_ok(sn_joint_get_reaction(world, joint, NULL, &torque));
			assert_near(sn_length(torque), moment, 1e-9 * moment, "it carries the load's moment");
			sn_world_destroy(world);
		}
	}
}

// ---- motors ----------------------------------------------------------------------------------------

// A hinge motor turning a box about its own centre (no gravity; the hinge axis x is the box's long axis,
// I_x = 0.0125 kg*m^2, the other two 0.1 and 0.0925): with a cap of 0.025 N*m the box accelerates at
// exactly T / I_x = 2 rad/s^2 (a principal axis: no gyroscopic coupling), and with a large cap it is at
// the target speed after the first step.
static void test_hinge_motor_about_centre(void** state)
{
	(void)state;
	const double mass = 3.0, cap = 0.025;
	sn_mat33 inertia = sn_inertia_box(mass, sn_v3(0.5, 0.05, 0.1));
	for (int s = 0; s < 2; ++s)
	{
		for (int capped = 0; capped < 2; ++capped)
		{
			sn_world* world = test_world(solvers[s], dt, sn_v3(0, 0, 0));
			sn_body_id body = test_body(world, sn_v3(0, 0, 0), mass, inertia);
			sn_hinge_joint_def hd = sn_default_hinge_joint_def();
			hd.base.body_b = body;
			hd.motor = (sn_motor){ true, 3.0, capped ? cap : 100.0 };
			sn_joint_id joint;
			assert_sn_ok(sn_create_hinge_joint(world, &hd, &joint));
			assert_sn_ok(sn_world_step(world));
			if (!capped)
			{
				assert_near(sn_body_get_angular_velocity(world, body).x, 3.0, 1e-12, "target speed in one step");
				sn_world_destroy(world);
				continue;
			}
			for (int i = 1; i < 1000; ++i)
			{
				assert_sn_ok(sn_world_step(world));
			}
			double accel = cap / inertia.cx.x;
			double h = solve_length(solvers[s], dt), n = 1.0 / h;
			report_measure("capped motor about its centre: speed error (rad/s)",
						   sn_body_get_angular_velocity(world, body).x - accel);
			assert_near(sn_body_get_angular_velocity(world, body).x, accel, 1e-12, "T / I exactly, rounding only");
			assert_near(sn_joint_get_coordinate(world, joint, SN_AXIS_RX), accel * h * h * n * (n + 1.0) / 2.0, 1e-12,
						"semi-implicit Euler angle, rounding only");
			sn_world_destroy(world);
		}
	}
}

// A hinge motor on the bob of the pendulum (no gravity), arm r = 0.5 m, 2 kg, I = 0.01 kg*m^2 about its
// centre: the axis's inertia is I + m r^2 = 0.51 kg*m^2.
//   Strong enough (cap 100 N*m, 0.1 N*m*s per step; 2 rad/s needs 1.02 N*m*s): at full torque for 10
//   steps, at the target in the 11th, then held to rounding.
//   Capped at 0.051 N*m: accelerates at 0.051 / 0.51 = 0.1 rad/s^2. One more closed-form term: each
//   solve of length h moves the bob along the tangent, and the next solve projects its velocity onto the
//   new tangent, turned by w h: a factor cos(w h) ~ 1 - (w h)^2 / 2 on the speed (the pendulum test's
//   loss). Summed, w(t) = a t - (h / 2) int w^3 dt = a t - h a^3 t^4 / 8, with h the solve length
//   (1.25e-7 rad/s at t = 1 s for PGS, 1/8 of it for TGS). The bound is 10% of that term.
static void test_hinge_motor(void** state)
{
	(void)state;
	const double mass = 2.0, arm = 0.5, inertia = 0.01, axis_inertia = inertia + mass * arm * arm;
	for (int s = 0; s < 2; ++s)
	{
		sn_world* world = test_world(solvers[s], dt, sn_v3(0, 0, 0));
		sn_hinge_joint_def hd = sn_default_hinge_joint_def();
		hd.motor = (sn_motor){ true, 2.0, 100.0 };
		sn_body_id bob;
		sn_joint_id joint = pendulum(world, mass, inertia, arm, &hd, &bob);
		int reached = -1;
		for (int i = 0; i < 100; ++i)
		{
			assert_sn_ok(sn_world_step(world));
			if (reached < 0 && fabs(sn_joint_get_coordinate_speed(world, joint, SN_AXIS_RX) - 2.0) < 1e-9)
			{
				reached = i + 1;
			}
		}
		report_measure("motor steps to reach the target", reached);
		assert_int_equal(reached, 11);
		assert_near(sn_joint_get_coordinate_speed(world, joint, SN_AXIS_RX), 2.0, 1e-12, "holds the target");
		// The bob runs on its circle: |v| = w r.
		assert_near(sn_length(sn_body_get_linear_velocity(world, bob)), 2.0 * arm, 1e-6, "v = w r on the circle");
		sn_world_destroy(world);

		world = test_world(solvers[s], dt, sn_v3(0, 0, 0));
		const double cap = 0.051;
		hd.motor = (sn_motor){ true, 100.0, cap };
		joint = pendulum(world, mass, inertia, arm, &hd, &bob);
		int steps = 1000;
		for (int i = 0; i < steps; ++i)
		{
			assert_sn_ok(sn_world_step(world));
		}
		double h = solve_length(solvers[s], dt), n = steps * dt / h, accel = cap / axis_inertia;
		double speed = sn_joint_get_coordinate_speed(world, joint, SN_AXIS_RX);
		double angle = sn_joint_get_coordinate(world, joint, SN_AXIS_RX);
		double t = steps * dt, loss = h * accel * accel * accel * t * t * t * t / 8.0;
		report_measure("capped motor speed error (rad/s)", speed - accel * t);
		report_measure("capped motor speed error with the projection loss (rad/s)", speed - (accel * t - loss));
		assert_near(speed, accel * t - loss, 0.1 * loss, "max_torque / (I + m r^2) minus the projection loss");
		// The angle lags by the integral of the loss, h a^3 t^5 / 40: within 10% of it.
		double angle_lag = h * accel * accel * accel * t * t * t * t * t / 40.0;
		assert_near(angle, accel * h * h * n * (n + 1.0) / 2.0 - angle_lag, 0.1 * angle_lag + 1e-12,
					"semi-implicit Euler angle minus the lag");
		sn_vec3 torque;
		assert_sn_ok(sn_joint_get_reaction(world, joint, NULL, &torque));
		// The reaction's component along the hinge axis (world y) is the motor's torque on the bob.
		assert_near(torque.y, cap, 1e-9 * cap, "forces out: the cap");
		sn_world_destroy(world);
	}
}

// A prismatic motor on a 3 kg slider along x, no gravity: reaches 1.5 m/s at once with a large cap, and
// with a cap of 0.6 N accelerates at exactly 0.2 m/s^2.
static void test_prismatic_motor(void** state)
{
	(void)state;
	for (int s = 0; s < 2; ++s)
	{
		for (int capped = 0; capped < 2; ++capped)
		{
			sn_world* world = test_world(solvers[s], dt, sn_v3(0, 0, 0));
			sn_body_id body = test_body(world, sn_v3(0, 0, 0), 3.0, sn_inertia_box(3.0, sn_v3(0.2, 0.1, 0.1)));
			sn_prismatic_joint_def pd = sn_default_prismatic_joint_def();
			pd.base.body_b = body;
			pd.motor = (sn_motor){ true, 1.5, capped ? 0.6 : 1000.0 };
			sn_joint_id joint;
			assert_sn_ok(sn_create_prismatic_joint(world, &pd, &joint));
			for (int i = 0; i < 500; ++i)
			{
				assert_sn_ok(sn_world_step(world));
			}
			double v = sn_body_get_linear_velocity(world, body).x;
			if (capped)
			{
				assert_near(v, 0.2 * 0.5, 1e-12, "max_force / m, exactly");
			}
			else
			{
				assert_near(v, 1.5, 1e-12, "reaches the target speed");
			}
			sn_world_destroy(world);
		}
	}
}

// ---- forces out -------------------------------------------------------------------------------------

// A 2.5 kg body at rest, hung from the world by each joint type (anchor 0.4 m above its centre; the
// sliding axes horizontal), reports a reaction force (m g up) on it and no torque about the anchor.
// At rest the rows' impulses are m g h per solve from the first step on; the reaction is their sum over
// the step divided by the step: rounding only.
static void test_reaction_equals_weight(void** state)
{
	(void)state;
	const double mass = 2.5;
	for (int s = 0; s < 2; ++s)
	{
		for (int type = 0; type < SN_JOINT_TYPE_COUNT; ++type)
		{
			sn_world* world = test_world(solvers[s], dt, sn_v3(0, 0, -g));
			sn_body_id body = test_body(world, sn_v3(0, 0, -0.4), mass, sn_inertia_box(mass, sn_v3(0.1, 0.1, 0.2)));
			sn_joint_base base = sn_default_joint_base();
			base.body_b = body;
			base.frame_b.p = sn_v3(0, 0, 0.4);
			sn_joint_id joint;
			switch ((sn_joint_type)type)
			{
				case SN_JOINT_FIXED:
				{
					sn_fixed_joint_def d = sn_default_fixed_joint_def();
					d.base = base;
					assert_sn_ok(sn_create_fixed_joint(world, &d, &joint));
					break;
				}
				case SN_JOINT_HINGE:
				{
					sn_hinge_joint_def d = sn_default_hinge_joint_def();
					d.base = base;
					assert_sn_ok(sn_create_hinge_joint(world, &d, &joint));
					break;
				}
				case SN_JOINT_PRISMATIC:
				{
					sn_prismatic_joint_def d = sn_default_prismatic_joint_def();
					d.base = base;
					assert_sn_ok(sn_create_prismatic_joint(world, &d, &joint));
					break;
				}
				case SN_JOINT_SPHERICAL:
				{
					sn_spherical_joint_def d = sn_default_spherical_joint_def();
					d.base = base;
					assert_sn_ok(sn_create_spherical_joint(world, &d, &joint));
					break;
				}
				case SN_JOINT_DISTANCE:
				{
					sn_distance_joint_def d = sn_default_distance_joint_def();
					d.base = base;
					d.base.frame_b.p = sn_v3(0, 0, 0);
					d.length = 0.4;
					assert_sn_ok(sn_create_distance_joint(world, &d, &joint));
					break;
				}
				case SN_JOINT_CYLINDRICAL:
				{
					sn_cylindrical_joint_def d = sn_default_cylindrical_joint_def();
					d.base = base;
					assert_sn_ok(sn_create_cylindrical_joint(world, &d, &joint));
					break;
				}
				default:
				{
					sn_six_axis_joint_def d = sn_default_six_axis_joint_def();
					d.base = base;
					d.axes[SN_AXIS_RX].mode = SN_AXIS_FREE;
					d.axes[SN_AXIS_RZ].mode = SN_AXIS_FREE;
					assert_sn_ok(sn_create_six_axis_joint(world, &d, &joint));
					break;
				}
			}
			double worst_f = 0.0, worst_t = 0.0;
			for (int i = 0; i < 200; ++i)
			{
				assert_sn_ok(sn_world_step(world));
				sn_vec3 f, t;
				assert_sn_ok(sn_joint_get_reaction(world, joint, &f, &t));
				worst_f = fmax(worst_f, sn_length(sn_sub(f, sn_v3(0, 0, mass * g))));
				worst_t = fmax(worst_t, sn_length(t));
			}
			char name[80];
			snprintf(name, sizeof(name), "%s %s reaction error (N)", sn_joint_type_name((sn_joint_type)type),
					 sn_solver_name(solvers[s]));
			report_measure(name, worst_f);
			assert_below(worst_f, 1e-12 * mass * g, "at rest: m g h per solve, rounding only");
			assert_below(worst_t, 1e-12 * mass * g, "the load hangs below the anchor: no moment");
			assert_below(sn_length(sn_body_get_linear_velocity(world, body)), 1e-12, "still at rest");
			sn_world_destroy(world);
		}
	}
}

// A fixed joint holding a 3 kg body 0.5 m out (along +x) and 0.2 m along y, level with the anchor:
// force (0, 0, m g) and torque about the anchor r x (m g z) = m g (0.2, -0.5, 0) N*m, from the first step.
static void test_fixed_joint_offset_load(void** state)
{
	(void)state;
	const double mass = 3.0;
	for (int s = 0; s < 2; ++s)
	{
		sn_world* world = test_world(solvers[s], dt, sn_v3(0, 0, -g));
		sn_body_id body = test_body(world, sn_v3(0.5, 0.2, 0), mass, sn_inertia_box(mass, sn_v3(0.2, 0.05, 0.05)));
		sn_fixed_joint_def fd = sn_default_fixed_joint_def();
		fd.base.body_b = body;
		fd.base.frame_b.p = sn_v3(-0.5, -0.2, 0);
		sn_joint_id joint;
		assert_sn_ok(sn_create_fixed_joint(world, &fd, &joint));
		sn_vec3 expect_t = sn_scale(mass * g, sn_v3(0.2, -0.5, 0.0));
		double worst_f = 0.0, worst_t = 0.0;
		for (int i = 0; i < 200; ++i)
		{
			assert_sn_ok(sn_world_step(world));
			sn_vec3 f, t;
			assert_sn_ok(sn_joint_get_reaction(world, joint, &f, &t));
			worst_f = fmax(worst_f, sn_length(sn_sub(f, sn_v3(0, 0, mass * g))));
			worst_t = fmax(worst_t, sn_length(sn_sub(t, expect_t)));
		}
		report_measure("offset load force error (N)", worst_f);
		report_measure("offset load torque error (N*m)", worst_t);
		assert_below(worst_f, 1e-12 * mass * g, "m g, rounding only");
		assert_below(worst_t, 1e-12 * mass * g, "m g x lever, rounding only");
		sn_world_destroy(world);
	}
}

// ---- breaking ---------------------------------------------------------------------------------------

// A body hangs at rest from a hinge with break force 20 N. At 1% under (m g = 19.8 N) it holds for
// 2 s; at 1% over (20.2 N) it breaks in the first step, reports the event, and falls freely after.
static void test_break_force_threshold(void** state)
{
	(void)state;
	const double threshold = 20.0;
	for (int s = 0; s < 2; ++s)
	{
		for (int over = 0; over < 2; ++over)
		{
			double mass = threshold * (over ? 1.01 : 0.99) / g;
			sn_world* world = test_world(solvers[s], dt, sn_v3(0, 0, -g));
			sn_body_id body = test_body(world, sn_v3(0, 0, -0.5), mass, sn_inertia_sphere(mass, 0.1));
			sn_hinge_joint_def hd = sn_default_hinge_joint_def();
			hd.base.body_b = body;
			hd.base.frame_b.p = sn_v3(0, 0, 0.5);
			hd.base.break_force = threshold;
			hd.base.user_data = 0xfeed;
			sn_joint_id joint;
			assert_sn_ok(sn_create_hinge_joint(world, &hd, &joint));
			assert_sn_ok(sn_world_step(world));
			int count = -1;
			const sn_joint_break_event* events = sn_world_get_break_events(world, &count);
			if (!over)
			{
				assert_int_equal(count, 0);
				for (int i = 0; i < 2000; ++i)
				{
					assert_sn_ok(sn_world_step(world));
					sn_world_get_break_events(world, &count);
					assert_int_equal(count, 0);
				}
				assert_false(sn_joint_is_broken(world, joint));
				assert_below(sn_length(sn_body_get_linear_velocity(world, body)), 1e-12, "still held");
				sn_world_destroy(world);
				continue;
			}
			assert_int_equal(count, 1);
			assert_true(sn_joint_id_equals(events[0].joint, joint));
			assert_near(events[0].force.z, mass * g, 1e-9 * mass * g, "the force that broke it: m g");
			assert_near(hypot(events[0].force.x, events[0].force.y), 0.0, 1e-12, "straight up");
			assert_below(sn_length(events[0].torque), 1e-9, "no moment about the anchor");
			assert_near(events[0].time, dt, 0.0, "world time at the end of the breaking step");
			assert_int_equal(events[0].user_data, 0xfeed);
			assert_true(sn_joint_is_broken(world, joint));
			assert_true(sn_joint_is_valid(world, joint));
			// The joint held during the breaking step (it broke on that step's force), so the body starts
			// falling from rest in the next one: v = -g t exactly after t.
			sn_vec3 v0 = sn_body_get_linear_velocity(world, body);
			assert_below(sn_length(v0), 1e-12, "held during the breaking step");
			for (int i = 0; i < 100; ++i)
			{
				assert_sn_ok(sn_world_step(world));
			}
			assert_near(sn_body_get_linear_velocity(world, body).z, -g * 0.1, 1e-12, "free fall after breaking");
			sn_vec3 f;
			assert_sn_ok(sn_joint_get_reaction(world, joint, &f, NULL));
			assert_below(sn_length(f), 0.0, "a broken joint exerts nothing");
			sn_world_get_break_events(world, &count);
			assert_int_equal(count, 0); // a broken joint does not break again
			sn_world_destroy(world);
		}
	}
}

// A fixed joint holding a 2 kg body 0.5 m out: torque m g 0.5 = 9.81 N*m; break torque 1% above holds,
// 1% below breaks in the first step.
static void test_break_torque_threshold(void** state)
{
	(void)state;
	const double mass = 2.0, lever = 0.5, moment = mass * g * lever;
	for (int s = 0; s < 2; ++s)
	{
		for (int over = 0; over < 2; ++over)
		{
			sn_world* world = test_world(solvers[s], dt, sn_v3(0, 0, -g));
			sn_body_id body = test_body(world, sn_v3(lever, 0, 0), mass, sn_inertia_sphere(mass, 0.1));
			sn_fixed_joint_def fd = sn_default_fixed_joint_def();
			fd.base.body_b = body;
			fd.base.frame_b.p = sn_v3(-lever, 0, 0);
			fd.base.break_torque = moment * (over ? 0.99 : 1.01);
			fd.base.break_force = mass * g * 1.01; // the force alone does not break it
			sn_joint_id joint;
			assert_sn_ok(sn_create_fixed_joint(world, &fd, &joint));
			for (int i = 0; i < 500; ++i)
			{
				assert_sn_ok(sn_world_step(world));
				int count;
				const sn_joint_break_event* events = sn_world_get_break_events(world, &count);
				if (over && i == 0)
				{
					assert_int_equal(count, 1);
					assert_near(sn_length(events[0].torque), moment, 1e-9 * moment, "the moment that broke it");
				}
				else
				{
					assert_int_equal(count, 0);
				}
			}
			assert_int_equal(sn_joint_is_broken(world, joint), over);
			sn_world_destroy(world);
		}
	}
}

// ---- enable and disable -----------------------------------------------------------------------------

static void test_enable_disable(void** state)
{
	(void)state;
	for (int s = 0; s < 2; ++s)
	{
		sn_world* world = test_world(solvers[s], dt, sn_v3(0, 0, -g));
		sn_body_id body = test_body(world, sn_v3(0, 0, -0.5), 1.0, sn_inertia_sphere(1.0, 0.1));
		sn_spherical_joint_def sd = sn_default_spherical_joint_def();
		sd.base.body_b = body;
		sd.base.frame_b.p = sn_v3(0, 0, 0.5);
		sn_joint_id joint;
		assert_sn_ok(sn_create_spherical_joint(world, &sd, &joint));
		for (int i = 0; i < 10; ++i)
		{
			assert_sn_ok(sn_world_step(world));
		}
		assert_sn_ok(sn_joint_set_enabled(world, joint, false));
		assert_false(sn_joint_is_enabled(world, joint));
		// Disabled: free fall from rest, v = -g t exactly, and no reaction.
		for (int i = 0; i < 100; ++i)
		{
			assert_sn_ok(sn_world_step(world));
		}
		assert_near(sn_body_get_linear_velocity(world, body).z, -g * 0.1, 1e-12, "free fall while disabled");
		sn_vec3 f;
		assert_sn_ok(sn_joint_get_reaction(world, joint, &f, NULL));
		assert_below(sn_length(f), 0.0, "a disabled joint exerts nothing");
		double gap = sn_length(joint_separation(world, joint));
		assert_true(gap > 0.04); // fell about g t^2 / 2 = 49 mm
		// Enabled again: the joint stops the fall at once and pulls the anchor back at erp 0.2 per
		// solve (split impulse: no velocity is added), so the gap shrinks geometrically.
		assert_sn_ok(sn_joint_set_enabled(world, joint, true));
		assert_true(sn_joint_is_enabled(world, joint));
		for (int i = 0; i < 200; ++i)
		{
			assert_sn_ok(sn_world_step(world));
		}
		double back = sn_length(joint_separation(world, joint));
		report_measure("gap 0.2 s after re-enabling (m)", back);
		assert_below(back, 1e-9, "0.8^200 of the gap, then rounding");
		assert_sn_ok(sn_joint_get_reaction(world, joint, &f, NULL));
		assert_near(f.z, g, 1e-6 * g, "holding the weight again");
		sn_world_destroy(world);
	}
}

// ---- soft lock ----------------------------------------------------------------------------------------

// A fixed joint with lock softness k = 2e4 (N/m on its translations, N*m/rad on its rotations) and
// c = 300, holding a 2 kg body at its centre of mass. Under its weight it sinks m g / k = 0.981 mm; under
// a torque of 5 N*m about x it turns T / k = 0.25 mrad. At rest the implicit rows balance the loads
// exactly, so the deflections are the same for every step; the residual is the decay, exp(-zeta w t)
// with zeta w = c / 2m = 75/s (linear) and c / 2I = 1.9e4/s (angular, I = 0.008): nothing after 1 s.
static void test_soft_lock(void** state)
{
	(void)state;
	const double steps[4] = { 0.0005, 0.001, 0.005, 0.02 };
	const double mass = 2.0, k = 2e4, torque = 5.0;
	for (int s = 0; s < 2; ++s)
	{
		for (int i = 0; i < 4; ++i)
		{
			sn_world* world = test_world(solvers[s], steps[i], sn_v3(0, 0, -g));
			sn_body_id body = test_body(world, sn_v3(0, 0, 0), mass, sn_inertia_sphere(mass, 0.1));
			sn_fixed_joint_def fd = sn_default_fixed_joint_def();
			fd.base.body_b = body;
			fd.base.lock_soft = sn_soft_stiffness(k, 300.0);
			sn_joint_id joint;
			assert_sn_ok(sn_create_fixed_joint(world, &fd, &joint));
			int n = (int)(1.0 / steps[i] + 0.5);
			for (int j = 0; j < n; ++j)
			{
				assert_sn_ok(sn_body_apply_torque(world, body, sn_v3(torque, 0, 0)));
				assert_sn_ok(sn_world_step(world));
			}
			double sink = -sn_joint_get_coordinate(world, joint, SN_AXIS_Z);
			double turn = sn_joint_get_coordinate(world, joint, SN_AXIS_RX);
			report_measure("soft lock sink error (m)", sink - mass * g / k);
			report_measure("soft lock turn error (rad)", turn - torque / k);
			assert_near(sink, mass * g / k, 1e-9 * mass * g / k, "implicit soft row at rest: F / k");
			assert_near(turn, torque / k, 1e-9 * torque / k, "implicit soft row at rest: T / k");
			sn_world_destroy(world);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hinge_limit_on_a_lever),
		cmocka_unit_test(test_prismatic_limit),
		cmocka_unit_test(test_soft_limit_deflection),
		cmocka_unit_test(test_spring_deflection),
		cmocka_unit_test(test_capped_servo),
		cmocka_unit_test(test_hinge_motor_about_centre),
		cmocka_unit_test(test_hinge_motor),
		cmocka_unit_test(test_prismatic_motor),
		cmocka_unit_test(test_reaction_equals_weight),
		cmocka_unit_test(test_fixed_joint_offset_load),
		cmocka_unit_test(test_break_force_threshold),
		cmocka_unit_test(test_break_torque_threshold),
		cmocka_unit_test(test_enable_disable),
		cmocka_unit_test(test_soft_lock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
