// The world: settings and their getters, time and counts, listing objects, divergence (detected,
// sticky, refused, cleared only once fixed), and the lifetime of the break events list.
#include "core_support.h"

#include <float.h>

static void test_settings_round_trip(void** state)
{
	(void)state;
	sn_world* world = test_world(SN_SOLVER_TGS, 0.001, sn_v3(0, 0, -9.81));
	assert_sn_ok(sn_world_set_gravity(world, sn_v3(1.0, -2.0, -3.0)));
	assert_sn_ok(sn_world_set_time_step(world, 0.004));
	assert_sn_ok(sn_world_set_solver(world, SN_SOLVER_PGS));
	assert_sn_ok(sn_world_set_iterations(world, 12, 3));
	assert_sn_ok(sn_world_set_substeps(world, 2));
	assert_sn_ok(sn_world_set_erp(world, 0.35));
	sn_vec3 g = sn_world_get_gravity(world);
	assert_true(g.x == 1.0 && g.y == -2.0 && g.z == -3.0);
	assert_true(sn_world_get_time_step(world) == 0.004);
	assert_int_equal(sn_world_get_solver(world), SN_SOLVER_PGS);
	assert_int_equal(sn_world_get_position_iterations(world), 12);
	assert_int_equal(sn_world_get_velocity_iterations(world), 3);
	assert_int_equal(sn_world_get_substeps(world), 2);
	assert_true(sn_world_get_erp(world) == 0.35);
	sn_world_def d = sn_world_get_def(world);
	assert_true(d.gravity.y == -2.0 && d.time_step == 0.004 && d.solver == SN_SOLVER_PGS);
	assert_true(d.position_iterations == 12 && d.velocity_iterations == 3 && d.substeps == 2 && d.erp == 0.35);
	assert_true(d.divergence_speed == 1e6);
	assert_true(strcmp(sn_world_last_error_detail(world), "") == 0); // nothing has failed yet

	// The new gravity and step act from the next step: free fall over 10 steps of 4 ms in two substeps
	// of 2 ms, v = 10 * 0.004 * g exactly up to rounding.
	sn_body_id body = test_body(world, sn_v3(0, 0, 0), 1.0, sn_inertia_sphere(1.0, 0.1));
	for (int i = 0; i < 10; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	sn_vec3 v = sn_body_get_linear_velocity(world, body);
	assert_near(v.x, 0.04, 1e-15, "10 steps of 4 ms at 1 m/s^2");
	assert_near(v.z, -0.12, 1e-15, "10 steps of 4 ms at -3 m/s^2");
	assert_near(sn_world_get_time(world), 0.04, 1e-15, "10 steps of 4 ms");
	assert_int_equal(sn_world_get_step_count(world), 10);
	// A body's gravity scale multiplies the world's gravity.
	assert_sn_ok(sn_body_set_gravity_scale(world, body, -0.5));
	assert_sn_ok(sn_body_set_linear_velocity(world, body, sn_v3(0, 0, 0)));
	assert_sn_ok(sn_world_step(world));
	assert_near(sn_body_get_linear_velocity(world, body).z, 0.004 * 1.5, 1e-15, "gravity scale -0.5");
	sn_world_destroy(world);
	sn_world_destroy(NULL); // allowed
}

static void test_listing(void** state)
{
	(void)state;
	sn_world* world = test_world(SN_SOLVER_TGS, 0.001, sn_v3(0, 0, -9.81));
	assert_int_equal(sn_world_get_bodies(world, NULL, 0), 0);
	assert_int_equal(sn_world_get_joints(world, NULL, 0), 0);
	int count = -1;
	sn_world_get_break_events(world, &count);
	assert_int_equal(count, 0);
	sn_body_id bodies[6];
	for (int i = 0; i < 6; ++i)
	{
		bodies[i] = test_body(world, sn_v3(i, 0, 0), 1.0, sn_inertia_sphere(1.0, 0.1));
	}
	assert_sn_ok(sn_destroy_body(world, bodies[2]));
	sn_body_id listed[8] = { { 0, 0 } };
	// Capacity below the count: writes that many, returns the total.
	assert_int_equal(sn_world_get_bodies(world, listed, 3), 5);
	assert_true(sn_body_id_equals(listed[0], bodies[0]));
	assert_true(sn_body_id_equals(listed[1], bodies[1]));
	assert_true(sn_body_id_equals(listed[2], bodies[3])); // creation-slot order, the dead slot skipped
	assert_true(sn_body_id_is_null(listed[3]));
	assert_int_equal(sn_world_get_bodies(world, listed, 8), 5);
	assert_true(sn_body_id_equals(listed[4], bodies[5]));
	assert_int_equal(sn_world_get_body_count(world), 5);
	sn_world_destroy(world);
}

// A world whose body is given a runaway velocity (above divergence_speed) diverges: the step that makes
// the state too fast returns SN_ERR_DIVERGED, the world stays flagged and refuses to step (changing
// nothing), clearing is refused while a body is still too fast or not finite, and succeeds after the
// state is fixed.
static void test_divergence_runaway(void** state)
{
	(void)state;
	sn_world_def wd = sn_default_world_def();
	wd.divergence_speed = 1e3;
	sn_world* world;
	assert_sn_ok(sn_world_create(&wd, &world));
	sn_body_id a = test_body(world, sn_v3(0, 0, 0), 1.0, sn_inertia_sphere(1.0, 0.1));
	sn_body_id b = test_body(world, sn_v3(1, 0, 0), 1.0, sn_inertia_sphere(1.0, 0.1));
	sn_spherical_joint_def sd = sn_default_spherical_joint_def();
	sd.base.body_a = a;
	sd.base.body_b = b;
	sd.base.frame_a.p = sn_v3(0.5, 0, 0);
	sd.base.frame_b.p = sn_v3(-0.5, 0, 0);
	sn_joint_id j;
	assert_sn_ok(sn_create_spherical_joint(world, &sd, &j));
	assert_sn_ok(sn_world_step(world));
	assert_false(sn_world_is_diverged(world));

	// Spin above the limit (rad/s counts like m/s), about the line through the anchor and the centre of
	// mass, which the ball joint lets the body keep.
	assert_sn_ok(sn_body_set_angular_velocity(world, b, sn_v3(2e3, 0, 0)));
	assert_sn_error(sn_world_step(world), SN_ERR_DIVERGED);
	assert_true(sn_world_is_diverged(world));
	assert_true(strlen(sn_world_last_error_detail(world)) > 0);
	uint64_t hash = sn_world_state_hash(world);
	double time = sn_world_get_time(world);
	uint64_t steps = sn_world_get_step_count(world);
	for (int i = 0; i < 3; ++i)
	{
		assert_sn_error(sn_world_step(world), SN_ERR_DIVERGED);
	}
	assert_true(sn_world_state_hash(world) == hash);
	assert_true(sn_world_get_time(world) == time);
	assert_int_equal(sn_world_get_step_count(world), steps);
	// Still too fast: clearing is refused and the flag stays.
	assert_sn_error(sn_world_clear_divergence(world), SN_ERR_DIVERGED);
	assert_true(sn_world_is_diverged(world));
	assert_true(strlen(sn_world_last_error_detail(world)) > 0);
	// Fixed: cleared, and the world steps again.
	assert_sn_ok(sn_body_set_angular_velocity(world, a, sn_v3(0, 0, 0)));
	assert_sn_ok(sn_body_set_angular_velocity(world, b, sn_v3(0, 0, 0)));
	assert_sn_ok(sn_body_set_linear_velocity(world, a, sn_v3(0, 0, 0)));
	assert_sn_ok(sn_body_set_linear_velocity(world, b, sn_v3(0, 0, 0)));
	assert_sn_ok(sn_world_clear_divergence(world));
	assert_false(sn_world_is_diverged(world));
	for (int i = 0; i < 10; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	// Linear runaway, set directly: the next step diverges.
	assert_sn_ok(sn_body_set_linear_velocity(world, a, sn_v3(2e3, 0, 0)));
	assert_sn_error(sn_world_step(world), SN_ERR_DIVERGED);
	assert_true(sn_world_is_diverged(world));
	sn_world_destroy(world);
}

// A non-finite state: a body of the smallest normal mass pushed by a large force reaches an infinite
// velocity in one step. The step reports the divergence; clearing is refused with SN_ERR_NOT_FINITE
// until the body's pose and velocities are set to finite values.
static void test_divergence_non_finite(void** state)
{
	(void)state;
	sn_world* world = test_world(SN_SOLVER_PGS, 0.001, sn_v3(0, 0, -9.81));
	sn_body_id runaway = test_body(world, sn_v3(0, 0, 0), DBL_MIN, sn_inertia_sphere(1.0, 0.1));
	sn_body_id bystander = test_body(world, sn_v3(5, 0, 0), 1.0, sn_inertia_sphere(1.0, 0.1));
	assert_sn_ok(sn_body_apply_force_at_center(world, runaway, sn_v3(1e10, 0, 0)));
	assert_sn_error(sn_world_step(world), SN_ERR_DIVERGED);
	assert_true(sn_world_is_diverged(world));
	assert_false(isfinite(sn_body_get_center_of_mass(world, runaway).x));
	assert_true(isfinite(sn_body_get_center_of_mass(world, bystander).z)); // the other body is untouched
	assert_sn_error(sn_world_clear_divergence(world), SN_ERR_NOT_FINITE);
	assert_true(sn_world_is_diverged(world));
	assert_sn_error(sn_world_step(world), SN_ERR_DIVERGED);
	// Fix the body (its velocity alone is not enough: its position is not finite either).
	assert_sn_ok(sn_body_set_linear_velocity(world, runaway, sn_v3(0, 0, 0)));
	assert_sn_error(sn_world_clear_divergence(world), SN_ERR_NOT_FINITE);
	assert_sn_ok(sn_body_set_pose(world, runaway, sn_transform_identity()));
	assert_sn_ok(sn_world_clear_divergence(world));
	assert_false(sn_world_is_diverged(world));
	for (int i = 0; i < 10; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	assert_true(isfinite(sn_body_get_center_of_mass(world, runaway).z));
	// Destroying the offending body is also a fix.
	assert_sn_ok(sn_body_apply_force_at_center(world, runaway, sn_v3(1e10, 0, 0)));
	assert_sn_error(sn_world_step(world), SN_ERR_DIVERGED);
	assert_sn_ok(sn_destroy_body(world, runaway));
	assert_sn_ok(sn_world_clear_divergence(world));
	assert_sn_ok(sn_world_step(world));
	sn_world_destroy(world);
}

// A joint whose state is not finite while its bodies are: two bodies far apart (each position finite,
// their separation not) held by a distance joint. Its rows are inert, the bodies stay finite, and the
// joint's coordinate would stream as inf: the divergence check looks at joints too, the step reports it,
// and clearing is refused until the bodies are brought back.
static void test_divergence_joint_state(void** state)
{
	(void)state;
	sn_world* world = test_world(SN_SOLVER_TGS, 0.01, sn_v3(0, 0, 0));
	sn_body_id a = test_body(world, sn_v3(-1.5e308, 0, 0), 1.0, sn_inertia_sphere(1.0, 0.1));
	sn_body_id b = test_body(world, sn_v3(1.5e308, 0, 0), 1.0, sn_inertia_sphere(1.0, 0.1));
	sn_distance_joint_def dd = sn_default_distance_joint_def();
	dd.base.body_a = a;
	dd.base.body_b = b;
	dd.length = 1.0;
	sn_joint_id j;
	assert_sn_ok(sn_create_distance_joint(world, &dd, &j));
	assert_false(isfinite(sn_joint_get_coordinate(world, j, SN_AXIS_X)));
	assert_sn_error(sn_world_step(world), SN_ERR_DIVERGED);
	assert_true(sn_world_is_diverged(world));
	assert_sn_error(sn_world_clear_divergence(world), SN_ERR_NOT_FINITE);
	sn_transform near = sn_transform_identity();
	near.p = sn_v3(2, 0, 0);
	assert_sn_ok(sn_body_set_pose(world, a, sn_transform_identity()));
	assert_sn_ok(sn_body_set_pose(world, b, near));
	assert_sn_ok(sn_body_set_linear_velocity(world, a, sn_v3(0, 0, 0)));
	assert_sn_ok(sn_body_set_linear_velocity(world, b, sn_v3(0, 0, 0)));
	assert_sn_ok(sn_world_clear_divergence(world));
	assert_sn_ok(sn_world_step(world));
	assert_true(isfinite(sn_joint_get_coordinate(world, j, SN_AXIS_X)));
	sn_world_destroy(world);
}

// Break events: the list holds the joints that broke in the last step, in slot order, and is emptied by
// the next step.
static void test_break_events_lifetime(void** state)
{
	(void)state;
	sn_world* world = test_world(SN_SOLVER_TGS, 0.001, sn_v3(0, 0, -9.81));
	sn_joint_id joints[3];
	for (int i = 0; i < 3; ++i)
	{
		sn_body_id b = test_body(world, sn_v3(i, 0, -0.5), 1.0, sn_inertia_sphere(1.0, 0.1));
		sn_hinge_joint_def hd = sn_default_hinge_joint_def();
		hd.base.body_b = b;
		hd.base.frame_a.p = sn_v3(i, 0, 0);
		hd.base.frame_b.p = sn_v3(0, 0, 0.5);
		hd.base.break_force = i == 1 ? 100.0 : 5.0; // joints 0 and 2 hold 9.81 N: they break
		hd.base.user_data = 10 + (uint64_t)i;
		assert_sn_ok(sn_create_hinge_joint(world, &hd, joints + i));
	}
	assert_sn_ok(sn_world_step(world));
	int count;
	const sn_joint_break_event* events = sn_world_get_break_events(world, &count);
	assert_int_equal(count, 2);
	assert_true(sn_joint_id_equals(events[0].joint, joints[0]));
	assert_true(sn_joint_id_equals(events[1].joint, joints[2]));
	assert_int_equal(events[0].user_data, 10);
	assert_int_equal(events[1].user_data, 12);
	assert_near(events[1].time, 0.001, 0.0, "time at the end of the step");
	assert_non_null(sn_world_get_break_events(world, NULL)); // count may be NULL
	assert_sn_ok(sn_world_step(world));
	sn_world_get_break_events(world, &count);
	assert_int_equal(count, 0);
	// Re-enabling a broken joint mends it; it breaks again in the next step under the same load.
	assert_sn_ok(sn_joint_set_enabled(world, joints[0], true));
	assert_false(sn_joint_is_broken(world, joints[0]));
	assert_sn_ok(sn_world_step(world));
	events = sn_world_get_break_events(world, &count);
	assert_int_equal(count, 1);
	assert_true(sn_joint_id_equals(events[0].joint, joints[0]));
	assert_near(events[0].time, 0.003, 1e-15, "third step");
	// Raising the threshold of an unbroken joint keeps it; lowering it breaks it in the next step.
	assert_sn_ok(sn_joint_set_break_thresholds(world, joints[1], 1.0, INFINITY));
	assert_sn_ok(sn_world_step(world));
	events = sn_world_get_break_events(world, &count);
	assert_int_equal(count, 1);
	assert_true(sn_joint_id_equals(events[0].joint, joints[1]));
	sn_world_destroy(world);
}

// Two worlds with different id tags: the same slot and slot generation give ids that do not validate
// in the other world (rejected with SN_ERR_INVALID_ID and no change), while a world keeps accepting its
// own ids, also after a snapshot round trip (which keeps the tag).
static void test_foreign_ids_rejected(void** state)
{
	(void)state;
	sn_world_def da = sn_default_world_def(), db = sn_default_world_def();
	da.id_tag = 1;
	db.id_tag = 2;
	sn_world *a, *b;
	assert_sn_ok(sn_world_create(&da, &a));
	assert_sn_ok(sn_world_create(&db, &b));
	sn_body_def bd = sn_default_body_def();
	sn_body_id ia, ib;
	assert_sn_ok(sn_create_body(a, &bd, &ia));
	assert_sn_ok(sn_create_body(b, &bd, &ib));
	assert_int_equal(ia.index1, ib.index1); // same slot in both worlds
	assert_false(sn_body_id_equals(ia, ib));
	assert_true(sn_body_is_valid(a, ia));
	assert_false(sn_body_is_valid(b, ia));
	assert_false(sn_body_is_valid(a, ib));
	uint64_t before = sn_world_state_hash(b);
	assert_sn_error(sn_body_set_linear_velocity(b, ia, sn_v3(1, 0, 0)), SN_ERR_INVALID_ID);
	assert_true(sn_world_state_hash(b) == before);

	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	hd.base.body_b = ia;
	assert_sn_error(sn_create_hinge_joint(b, &hd, &(sn_joint_id){ 0, 0 }), SN_ERR_INVALID_ID);
	sn_joint_id ja;
	assert_sn_ok(sn_create_hinge_joint(a, &hd, &ja));
	assert_false(sn_joint_is_valid(b, ja));

	size_t size = sn_world_snapshot_size(a);
	void* bytes = test_malloc(size);
	assert_sn_ok(sn_world_snapshot_write(a, bytes, size, NULL));
	sn_world* copy;
	assert_sn_ok(sn_world_create_from_snapshot(bytes, size, NULL, &copy));
	assert_true(sn_body_is_valid(copy, ia));
	assert_true(sn_joint_is_valid(copy, ja));
	assert_int_equal(sn_world_get_def(copy).id_tag, 1);
	test_free(bytes);
	sn_world_destroy(copy);
	sn_world_destroy(a);
	sn_world_destroy(b);
}

// warm_start: [0, 1], finite; a rejected value changes nothing.
static void test_warm_start_setting(void** state)
{
	(void)state;
	sn_world_def wd = sn_default_world_def();
	assert_near(wd.warm_start, 1.0, 0.0, "default: full warm start");
	sn_world* w;
	assert_sn_ok(sn_world_create(&wd, &w));
	assert_sn_ok(sn_world_set_warm_start(w, 0.9));
	assert_sn_error(sn_world_set_warm_start(w, NAN), SN_ERR_NOT_FINITE);
	assert_sn_error(sn_world_set_warm_start(w, -0.1), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_world_set_warm_start(w, 1.5), SN_ERR_INVALID_ARGUMENT);
	assert_near(sn_world_get_warm_start(w), 0.9, 0.0, "rejected values change nothing");
	assert_true(sn_world_last_error_detail(w)[0] != '\0');
	wd.warm_start = INFINITY;
	assert_sn_error(sn_world_def_check(&wd, NULL, 0), SN_ERR_NOT_FINITE);
	sn_world_destroy(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settings_round_trip),    cmocka_unit_test(test_listing),
		cmocka_unit_test(test_divergence_runaway),     cmocka_unit_test(test_divergence_non_finite),
		cmocka_unit_test(test_divergence_joint_state), cmocka_unit_test(test_break_events_lifetime),
		cmocka_unit_test(test_foreign_ids_rejected),   cmocka_unit_test(test_warm_start_setting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
