// Contacts in XPBD worlds (solver/xpbd_contacts.c, after Mueller et al. 2020): the contact scenes of
// shared/bench/contact-scenes.md and the simple contact cases of the scene library, against closed forms.
// Every scene runs at the scenes' defaults: 8 XPBD substeps per step (hx = dt / 8), gravity 9.81 m/s^2.
//
// Tolerances. The closed forms assume continuous time; XPBD integrates each substep by semi-implicit
// Euler and projects positions, so a constant acceleration is reproduced to rounding (the position
// corrections are exact for a body on a plane: the prediction's overlap is removed, its velocity derived
// back), and the errors that remain are of the substep: an impact happens at the end of a substep, not
// within it (a velocity error of at most g hx, 1.2e-3 m/s, and a position error of at most v hx), and a box
// stops within the substep in which static friction can hold it (a distance error of at most v hx). The
// issue's bounds (1% for accelerations and stopping, 2% for the bounce) are far above these; each
// check says what the measured figure is limited by. Figures are printed as MEASURE lines.
#include "core_support.h"

#include <string.h>

static const double g = SCENE_GRAVITY;

static sn_world* scene_world(double dt)
{
	return test_scene_world(SN_SOLVER_XPBD, dt);
}

static void step_n(sn_world* world, int n)
{
	for (int i = 0; i < n; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
}

// The contact force on a body averaged over the last step (N, world): the sum of its manifolds' point
// forces, with the sign of the side it is on.
static sn_vec3 contact_force_on(const sn_world* world, sn_body_id body)
{
	sn_contact contacts[8];
	int n = sn_body_get_contacts(world, body, contacts, 8);
	assert_true(n <= 8);
	sn_vec3 f = sn_v3(0, 0, 0);
	for (int i = 0; i < n; ++i)
	{
		double sign = sn_body_id_equals(contacts[i].body_b, body) ? 1.0 : -1.0;
		for (int k = 0; k < contacts[i].point_count; ++k)
		{
			f = sn_mul_add(f, sign, contacts[i].points[k].force);
		}
	}
	return f;
}

// The acceleration of a quadratic fitted to x(t) by least squares (2 times its t^2 coefficient).
static double fitted_acceleration(const double* t, const double* x, int n)
{
	double s[5] = { 0 }, r[3] = { 0 };
	for (int i = 0; i < n; ++i)
	{
		double p = 1.0;
		for (int k = 0; k < 5; ++k)
		{
			s[k] += p;
			if (k < 3)
			{
				r[k] += p * x[i];
			}
			p *= t[i];
		}
	}
	double m[3][4] = { { s[0], s[1], s[2], r[0] }, { s[1], s[2], s[3], r[1] }, { s[2], s[3], s[4], r[2] } };
	for (int c = 0; c < 3; ++c)
	{
		for (int row = c + 1; row < 3; ++row)
		{
			double f = m[row][c] / m[c][c];
			for (int k = c; k < 4; ++k)
			{
				m[row][k] -= f * m[c][k];
			}
		}
	}
	double c2 = m[2][3] / m[2][2];
	return 2.0 * c2;
}

// ---- C1: a box resting on a plane ----------------------------------------------------------------------

static void test_resting_box(void** state)
{
	(void)state;
	sn_world* world = scene_world(0.001);
	sn_body_id box;
	assert_sn_ok(scene_c1_resting_box(world, &box));
	double deepest = 0.0;
	for (int i = 0; i < 2000; ++i)
	{
		assert_sn_ok(sn_world_step(world));
		sn_collision_stats st = sn_world_get_collision_stats(world);
		deepest = fmin(deepest, st.deepest);
	}
	sn_vec3 f = contact_force_on(world, box);
	double ke = sn_body_get_kinetic_energy(world, box);
	report_measure("xpbd_c1_normal_force_N", f.z);
	report_measure("xpbd_c1_kinetic_energy_J", ke);
	report_measure("xpbd_c1_deepest_m", deepest);
	// Each substep's correction removes exactly the prediction's overlap g hx^2 (all four corners as one
	// block): the impulses add up to m g dt per step to rounding.
	assert_near(f.z, g, 1e-9 * g, "the normal impulses balance gravity to rounding");
	assert_below(fabs(f.x) + fabs(f.y), 1e-9, "nothing pushes the box sideways");
	assert_below(ke, 1e-6, "the issue's bound: no jitter (measured at rounding level)");
	assert_below(-deepest, sn_world_get_def(world).contact.slop, "within the documented slop (XPBD leaves none)");
	sn_world_destroy(world);
}

// The box as side A of its contact (created before the plane: A is the smaller shape slot), on the incline
// with mu = 0.3: the normal points from the box into the plane and everything else follows.
static void test_body_as_side_a(void** state)
{
	(void)state;
	sn_world* world = scene_world(0.001);
	const sn_vec3 n = sn_v3(sin(SCENE_C2_ANGLE), 0.0, cos(SCENE_C2_ANGLE));
	sn_transform pose = { sn_scale(0.1, n), sn_quat_from_axis_angle(sn_v3(0, 1, 0), SCENE_C2_ANGLE) };
	sn_body_id box;
	assert_sn_ok(scene_box(world, pose, 0.1, 1.0, scene_material(0.3, 0.0), &box, NULL));
	assert_sn_ok(scene_ground(world, n, scene_material(0.3, 0.0), NULL));
	step_n(world, 1000);
	sn_contact c[2];
	assert_int_equal(sn_body_get_contacts(world, box, c, 2), 1);
	assert_true(sn_body_id_equals(c[0].body_a, box));
	sn_vec3 v0 = sn_body_get_linear_velocity(world, box);
	step_n(world, 500);
	sn_vec3 v1 = sn_body_get_linear_velocity(world, box);
	double a = sn_dot(sn_sub(v1, v0), scene_c2_downhill()) / 0.5;
	report_measure("xpbd_side_a_incline_acceleration_m_s2", a);
	double exact = g * (sin(SCENE_C2_ANGLE) - 0.3 * cos(SCENE_C2_ANGLE));
	assert_near(a, exact, 1e-6 * exact, "as with the box on side B: Coulomb per substep (rounding)");
	assert_near(sn_dot(contact_force_on(world, box), n), g * cos(SCENE_C2_ANGLE), 1e-9 * g, "the normal force");
	sn_world_destroy(world);
}

// ---- C2: a box on a 30 degree incline ------------------------------------------------------------------

static void test_incline_holds(void** state)
{
	(void)state;
	sn_world* world = scene_world(0.001);
	sn_body_id box;
	assert_sn_ok(scene_c2_incline(world, 0.7, &box));
	sn_vec3 p0 = sn_body_get_center_of_mass(world, box);
	step_n(world, 2000);
	sn_vec3 p = sn_body_get_center_of_mass(world, box);
	double moved = sn_length(sn_sub(p, p0));
	sn_vec3 f = contact_force_on(world, box);
	report_measure("xpbd_c2a_moved_m", moved);
	// tan 30 = 0.577 < 0.7: the manifold's static friction holds the patch as one block within every
	// point's disk; what is left is rounding of the corrections (point-by-point friction crept 3.2 mm).
	assert_below(moved, 1e-9, "static friction holds the box (measured 1e-16 m)");
	// The contact force carries the weight: m g up.
	assert_near(f.z, g, 1e-9 * g, "the contact force balances gravity at rest");
	assert_below(fabs(f.x), 1e-9 * g, "no net horizontal force at rest");
	sn_world_destroy(world);
}

static void test_incline_slides(void** state)
{
	(void)state;
	const double mu = 0.3;
	sn_world* world = scene_world(0.001);
	sn_body_id box;
	assert_sn_ok(scene_c2_incline(world, mu, &box));
	sn_vec3 down = scene_c2_downhill();
	sn_vec3 p0 = sn_body_get_center_of_mass(world, box);
	double t[1001], x[1001];
	int n = 0;
	for (int i = 1; i <= 1500; ++i)
	{
		assert_sn_ok(sn_world_step(world));
		if (i >= 500)
		{
			t[n] = i * 0.001;
			x[n] = sn_dot(sn_sub(sn_body_get_center_of_mass(world, box), p0), down);
			n += 1;
		}
	}
	double a = fitted_acceleration(t, x, n);
	double exact = g * (sin(SCENE_C2_ANGLE) - mu * cos(SCENE_C2_ANGLE));
	report_measure("xpbd_c2b_acceleration_m_s2", a);
	report_measure("xpbd_c2b_relative_error", a / exact - 1.0);
	// The friction over a substep is mu times the normal impulse of the substep exactly (the Coulomb
	// budget of the velocity pass); the fit over 1 s of positions sampled per step adds rounding only.
	assert_near(a, exact, 1e-6 * exact, "Coulomb friction per substep is exact (measured 2.356287)");
	assert_near(a, exact, 0.01 * exact, "the issue's bound: 1%");
	// Readback: the manifold's friction force is mu times its normal force.
	sn_contact c[2];
	assert_int_equal(sn_body_get_contacts(world, box, c, 2), 1);
	double normal = 0.0;
	sn_vec3 friction = sn_v3(0, 0, 0);
	for (int k = 0; k < c[0].point_count; ++k)
	{
		const sn_contact_point* cp = c[0].points + k;
		normal += cp->normal_impulse;
		friction = sn_mul_add(friction, cp->tangent_impulse[0], c[0].tangent[0]);
		friction = sn_mul_add(friction, cp->tangent_impulse[1], c[0].tangent[1]);
	}
	report_measure("xpbd_c2b_friction_over_normal", sn_length(friction) / normal);
	assert_near(sn_length(friction) / normal, mu, 1e-9, "a sliding manifold's friction is mu N (rounding)");
	assert_near(normal / 0.001, g * cos(SCENE_C2_ANGLE), 1e-9 * g, "the normal force is m g cos 30");
	sn_world_destroy(world);
}

// ---- a box sliding to a stop ------------------------------------------------------------------------------

static double stopping_distance(int velocity_iterations, double v0, double mu, int* steps)
{
	sn_world_def wd = scene_world_def(SN_SOLVER_XPBD, 0.001);
	wd.velocity_iterations = velocity_iterations;
	sn_world* world = NULL;
	assert_sn_ok(sn_world_create(&wd, &world));
	sn_body_id box;
	assert_sn_ok(scene_sliding_box(world, v0, mu, &box));
	double x0 = sn_body_get_center_of_mass(world, box).x;
	int i = 0;
	for (; i < 5000 && sn_length(sn_body_get_linear_velocity(world, box)) > 1e-9; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	double d = sn_body_get_center_of_mass(world, box).x - x0;
	step_n(world, 500); // stays stopped
	assert_below(sn_length(sn_body_get_linear_velocity(world, box)), 1e-9, "static friction holds it");
	*steps = i;
	sn_world_destroy(world);
	return d;
}

static void test_sliding_box_stops(void** state)
{
	(void)state;
	const double mu = 0.5;
	const double speeds[2] = { 1.0, 3.0 };
	for (int k = 0; k < 2; ++k)
	{
		double v0 = speeds[k];
		int steps = 0;
		double d = stopping_distance(1, v0, mu, &steps);
		double exact = v0 * v0 / (2.0 * mu * g);
		report_measure(k == 0 ? "xpbd_slide_1ms_relative_error" : "xpbd_slide_3ms_relative_error", d / exact - 1.0);
		// Semi-implicit Euler moves the box by v after each velocity update: the distance falls short of
		// the continuous one by about v0 hx / 2 (3e-5 m at 1 m/s; measured -6e-4 and -2e-4 relative).
		assert_near(d, exact, 0.01 * exact, "the issue's bound: 1% (measured within 0.07%)");
		assert_near(steps * 0.001, v0 / (mu * g), 0.002, "it stops at v0 / (mu g), within the step it stops in");
	}
	// The contacts' velocity pass (dynamic friction) runs even when the joints' is switched off.
	int steps_a = 0, steps_b = 0;
	double a = stopping_distance(1, 1.0, mu, &steps_a);
	double b = stopping_distance(0, 1.0, mu, &steps_b);
	assert_near(b, a, 1e-12, "velocity_iterations does not change contact friction");
}

// ---- C3: a ball bouncing with restitution 0.5 ---------------------------------------------------------------

static void test_bounce(void** state)
{
	(void)state;
	sn_world* world = scene_world(0.001);
	sn_body_id ball;
	assert_sn_ok(scene_c3_bounce(world, 0.5, &ball));
	double apex = 0.0;
	bool rising = false;
	for (int i = 0; i < 1200; ++i)
	{
		assert_sn_ok(sn_world_step(world));
		double vz = sn_body_get_linear_velocity(world, ball).z;
		rising = rising || vz > 0.0;
		if (rising)
		{
			apex = fmax(apex, sn_body_get_center_of_mass(world, ball).z - 0.1);
		}
	}
	report_measure("xpbd_c3_apex_m", apex);
	// The rebound speed is e times the approach speed at the start of the substep of impact (at most g hx
	// below the speed at the surface) and the apex is sampled per step: both well below 0.1% (measured
	// 0.2497 m, -0.12%).
	assert_near(apex, 0.25, 0.02 * 0.25, "the issue's bound: 2%");
	assert_near(apex, 0.25, 0.002 * 0.25, "the impact's substep and the per-step sampling");
	sn_world_destroy(world);

	// Below the restitution threshold (1 m/s): a 3 cm drop arrives at 0.77 m/s and does not bounce.
	world = scene_world(0.001);
	assert_sn_ok(scene_dropped_ball(world, 0.03, 0.5, &ball));
	double up = 0.0;
	for (int i = 0; i < 500; ++i)
	{
		assert_sn_ok(sn_world_step(world));
		up = fmax(up, sn_body_get_linear_velocity(world, ball).z);
	}
	report_measure("xpbd_slow_drop_max_upward_speed_m_s", up);
	assert_below(up, 1e-9, "an approach slower than the threshold is inelastic");
	sn_world_destroy(world);
}

// ---- C4: a sphere rolling down a 20 degree incline -------------------------------------------------------

static void test_rolling_sphere(void** state)
{
	(void)state;
	sn_world* world = scene_world(0.001);
	sn_body_id ball;
	assert_sn_ok(scene_c4_rolling_sphere(world, &ball));
	const sn_vec3 down = sn_v3(cos(SCENE_C4_ANGLE), 0.0, -sin(SCENE_C4_ANGLE));
	const sn_vec3 n = sn_v3(sin(SCENE_C4_ANGLE), 0.0, cos(SCENE_C4_ANGLE));
	double v_early = 0.0, slip = 0.0;
	for (int i = 1; i <= 2000; ++i)
	{
		assert_sn_ok(sn_world_step(world));
		sn_vec3 v = sn_body_get_linear_velocity(world, ball);
		sn_vec3 w = sn_body_get_angular_velocity(world, ball);
		sn_vec3 contact = sn_add(v, sn_cross(w, sn_scale(-0.1, n)));
		slip = fmax(slip, fabs(sn_dot(contact, down)));
		if (i == 500)
		{
			v_early = sn_dot(v, down);
		}
	}
	double a = (sn_dot(sn_body_get_linear_velocity(world, ball), down) - v_early) / 1.5;
	double exact = 5.0 / 7.0 * g * sin(SCENE_C4_ANGLE);
	report_measure("xpbd_c4_acceleration_m_s2", a);
	report_measure("xpbd_c4_max_slip_m_s", slip);
	// Static friction holds the contact point in every substep; the friction correction splits into
	// translation and turn by the sphere's generalized inverse mass (1/m against r^2/I), which gives 5/7 of
	// the slope's pull exactly.
	assert_near(a, exact, 1e-6 * exact, "rolling without slipping is exact per substep (measured 2.396584)");
	assert_near(a, exact, 0.01 * exact, "the issue's bound: 1%");
	assert_below(slip, 1e-9, "no slip (measured 1e-14 m/s)");
	sn_world_destroy(world);
}

// ---- C5: a stack of ten boxes ---------------------------------------------------------------------------------

static void run_stack(double dt, const char* drift_name, const char* sink_name)
{
	sn_world* world = scene_world(dt);
	sn_body_id boxes[SCENE_C5_BOXES];
	assert_sn_ok(scene_c5_stack(world, boxes));
	sn_body_id top = boxes[SCENE_C5_BOXES - 1];
	sn_vec3 p0 = sn_body_get_center_of_mass(world, top);
	step_n(world, (int)(10.0 / dt + 0.5));
	sn_vec3 d = sn_sub(sn_body_get_center_of_mass(world, top), p0);
	double drift = hypot(d.x, d.y);
	report_measure(drift_name, drift);
	report_measure(sink_name, -d.z);
	// The top box moves by what the two sweeps of a substep leave unresolved of the stack's weight (XPBD
	// restarts its multipliers every substep): 7e-5 m down at 1/240 s, 4e-6 m at 1 ms, sideways at rounding.
	assert_below(sn_length(d), 0.005, "the issue's bound: the top box moves less than 5 mm");
	assert_below(drift, 1e-6, "nothing pushes the stack sideways (measured 1e-11 m)");
	sn_world_destroy(world);
}

static void test_stack_stands(void** state)
{
	(void)state;
	run_stack(1.0 / 240.0, "xpbd_c5_240hz_drift_m", "xpbd_c5_240hz_sink_m");
	run_stack(0.001, "xpbd_c5_1ms_drift_m", "xpbd_c5_1ms_sink_m");
}

// ---- soft contact ---------------------------------------------------------------------------------------------

static void test_soft_contact_sinks_f_c(void** state)
{
	(void)state;
	const double c = 1e-5; // m/N per shape; box and ground in series: 2c
	const double steps[3] = { 0.001, 1.0 / 240.0, 0.01 };
	const char* names[3] = { "xpbd_soft_1ms_relative_error", "xpbd_soft_240hz_relative_error",
							 "xpbd_soft_10ms_relative_error" };
	for (int k = 0; k < 3; ++k)
	{
		sn_world* world = scene_world(steps[k]);
		sn_material m = scene_material(0.5, 0.0);
		m.soft = sn_soft_compliance(c, 0.01);
		sn_body_id box;
		assert_sn_ok(scene_resting_box(world, 0.1, m, &box));
		step_n(world, (int)(3.0 / steps[k] + 0.5));
		double sink = 0.1 - sn_body_get_center_of_mass(world, box).z;
		double expected = 1.0 * g * 2.0 * c;
		report_measure(names[k], sink / expected - 1.0);
		// The fixed point of predict-and-correct is F c for any substep (xpbd_contacts.c); the damper has
		// settled the motion after 3 s to far below 1e-6 of the 0.2 mm deflection.
		assert_near(sink, expected, 1e-6 * expected, "the issue's bound: F c within 1e-6 relative");
		sn_world_destroy(world);
	}
}

// ---- deep overlaps, kinematic bodies, memory and determinism ---------------------------------------------------

static void test_deep_overlap_adds_no_energy(void** state)
{
	(void)state;
	sn_world* world = scene_world(0.001);
	assert_sn_ok(scene_ground(world, sn_v3(0, 0, 1), scene_material(0.5, 0.0), NULL));
	sn_body_id box;
	sn_transform pose = { sn_v3(0, 0, 0.05), sn_quat_identity() }; // 5 cm into the ground
	assert_sn_ok(scene_box(world, pose, 0.1, 1.0, scene_material(0.5, 0.0), &box, NULL));
	const double vmax = sn_world_get_def(world).contact.max_push_speed;
	double z = 0.05, fastest = 0.0, speed = 0.0;
	for (int i = 0; i < 200; ++i)
	{
		assert_sn_ok(sn_world_step(world));
		double zn = sn_body_get_center_of_mass(world, box).z;
		fastest = fmax(fastest, (zn - z) / 0.001);
		speed = fmax(speed, sn_length(sn_body_get_linear_velocity(world, box)));
		z = zn;
	}
	report_measure("xpbd_overlap_fastest_rise_m_s", fastest);
	report_measure("xpbd_overlap_max_speed_m_s", speed);
	// The push moves the box out at most at max_push_speed (plus what it undoes of gravity's g hx^2 per
	// substep), and the velocity pass takes the push's speed back.
	assert_below(fastest, vmax * 1.001, "the push out of an overlap is capped at max_push_speed");
	assert_below(speed, 1e-9, "no speed is left from the push (measured 1e-21 m/s)");
	assert_near(z, 0.1, 1e-9, "out of the ground after 50 ms at 1 m/s, resting");
	sn_world_destroy(world);
}

static void test_kinematic_platform_carries_a_box(void** state)
{
	(void)state;
	sn_world* world = scene_world(0.001);
	sn_body_def bd = sn_default_body_def();
	bd.type = SN_BODY_KINEMATIC;
	bd.pose.p = sn_v3(0, 0, -0.05);
	bd.linear_velocity = sn_v3(0.5, 0, 0);
	sn_body_id platform;
	assert_sn_ok(sn_create_body(world, &bd, &platform));
	sn_shape_def sd = sn_default_shape_def();
	sd.body = platform;
	sd.geometry = sn_geometry_box(sn_v3(5, 5, 0.05));
	sd.material = scene_material(0.8, 0.0);
	sn_shape_id shape;
	assert_sn_ok(sn_create_shape(world, &sd, &shape));
	sn_body_id box;
	sn_transform pose = { sn_v3(0, 0, 0.1), sn_quat_identity() };
	assert_sn_ok(scene_box(world, pose, 0.1, 1.0, scene_material(0.8, 0.0), &box, NULL));
	step_n(world, 1000);
	sn_vec3 v = sn_body_get_linear_velocity(world, box);
	report_measure("xpbd_platform_box_speed_m_s", v.x);
	// Static friction takes the box along from the first substep: its anchor moves with the platform's.
	assert_near(v.x, 0.5, 1e-9, "the box moves with the platform");
	assert_near(sn_body_get_center_of_mass(world, box).z, 0.1, 1e-9, "resting on it");
	sn_world_destroy(world);
}

static uint64_t run_stack_hash(sn_memory_stats* during)
{
	sn_world* world = scene_world(1.0 / 240.0);
	sn_body_id boxes[SCENE_C5_BOXES];
	assert_sn_ok(scene_c5_stack(world, boxes));
	step_n(world, 10); // the collision stage sizes its caches in the first steps (every solver does)
	sn_memory_stats first = sn_world_get_memory_stats(world);
	step_n(world, 300);
	*during = sn_world_get_memory_stats(world);
	during->allocations -= first.allocations;
	uint64_t h = sn_world_state_hash(world);
	sn_world_destroy(world);
	return h;
}

static void test_deterministic_and_no_allocation(void** state)
{
	(void)state;
	sn_memory_stats a, b;
	assert_true(run_stack_hash(&a) == run_stack_hash(&b));
	assert_int_equal((int)a.allocations, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resting_box),
		cmocka_unit_test(test_body_as_side_a),
		cmocka_unit_test(test_incline_holds),
		cmocka_unit_test(test_incline_slides),
		cmocka_unit_test(test_sliding_box_stops),
		cmocka_unit_test(test_bounce),
		cmocka_unit_test(test_rolling_sphere),
		cmocka_unit_test(test_stack_stands),
		cmocka_unit_test(test_soft_contact_sinks_f_c),
		cmocka_unit_test(test_deep_overlap_adds_no_energy),
		cmocka_unit_test(test_kinematic_platform_carries_a_box),
		cmocka_unit_test(test_deterministic_and_no_allocation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
