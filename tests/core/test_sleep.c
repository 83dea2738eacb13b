// Islands and sleeping (island.c): resting islands fall asleep and cost nothing; touching, forces, setters,
// drive targets and sn_body_wake wake them with their whole island; sleeping never changes what an awake
// island does; the sleep state travels in snapshots. (The cost per step, awake and asleep, is measured by
// bench_contacts' sleep scene: speed is a benchmark's figure, not a test's.)
#include "core_support.h"

#include <math.h>
#include <stdlib.h>

static sn_world* sleepy_world(sn_solver solver, double dt)
{
	sn_world_def wd = scene_world_def(solver, dt);
	wd.sleep.enabled = true;
	sn_world* world = NULL;
	assert_sn_ok(sn_world_create(&wd, &world));
	assert_sn_ok(scene_ground(world, sn_v3(0, 0, 1), scene_material(0.5, 0.0), NULL));
	return world;
}

static void step_ok(sn_world* world, int steps)
{
	for (int i = 0; i < steps; ++i)
	{
		sn_error err = sn_world_step(world);
		if (err != SN_ERR_OK)
		{
			fail_msg("step failed: %s (%s)", sn_error_name(err), sn_world_last_error_detail(world));
		}
	}
}

// A column of `height` 0.2 m boxes of 1 kg at (x, y), resting (no gaps).
static void column(sn_world* world, double x, double y, int height, sn_body_id* boxes)
{
	for (int k = 0; k < height; ++k)
	{
		sn_transform pose = { sn_v3(x, y, 0.1 + 0.2 * k), sn_quat_identity() };
		assert_sn_ok(scene_box(world, pose, 0.1, 1.0, scene_material(0.5, 0.0), boxes + k, NULL));
	}
}

// Steps until nothing is awake (at most `limit` steps); returns the steps taken, -1 if it never slept.
static int steps_to_sleep(sn_world* world, int limit)
{
	for (int i = 1; i <= limit; ++i)
	{
		step_ok(world, 1);
		if (sn_world_get_awake_body_count(world) == 0 && sn_world_get_awake_articulation_count(world) == 0)
		{
			return i;
		}
	}
	return -1;
}

// 50 boxes in five columns of ten fall asleep within 2 s (each rests after ~0.1 s; time_to_sleep is 0.5
// s), with zero velocities, in PGS and TGS at 1/240 s and 1 ms.
static void test_piles_fall_asleep(void** state)
{
	(void)state;
	const sn_solver solvers[2] = { SN_SOLVER_PGS, SN_SOLVER_TGS };
	const double dts[2] = { 1.0 / 240.0, 0.001 };
	for (int s = 0; s < 2; ++s)
	{
		for (int d = 0; d < 2; ++d)
		{
			sn_world* world = sleepy_world(solvers[s], dts[d]);
			sn_body_id boxes[50];
			for (int c = 0; c < 5; ++c)
			{
				column(world, 0.5 * c, 0.0, 10, boxes + 10 * c);
			}
			int steps = steps_to_sleep(world, (int)(2.0 / dts[d]));
			print_message("MEASURE %s dt %.4g: asleep after %.3f s\n", sn_solver_name(solvers[s]), dts[d],
						  steps * dts[d]);
			assert_true(steps > 0);
			for (int i = 0; i < 50; ++i)
			{
				assert_false(sn_body_is_awake(world, boxes[i]));
				assert_true(sn_length(sn_body_get_linear_velocity(world, boxes[i])) == 0.0);
			}
			// Asleep, the world keeps its contacts (readback) but solves none, and nothing moves.
			sn_transform before = sn_body_get_pose(world, boxes[9]);
			step_ok(world, 100);
			sn_transform after = sn_body_get_pose(world, boxes[9]);
			assert_true(before.p.z == after.p.z && before.q.w == after.q.w);
			assert_true(sn_world_get_contacts(world, NULL, 0) >= 50);
			sn_world_destroy(world);
		}
	}
}

// A ball dropped on one of two sleeping columns wakes that column (its island) only; the other sleeps on.
// A force on a sleeping box, sn_body_wake and turning sleeping off wake islands too.
static void test_waking(void** state)
{
	(void)state;
	sn_world* world = sleepy_world(SN_SOLVER_TGS, 1.0 / 240.0);
	sn_body_id left[5], right[5];
	column(world, 0.0, 0.0, 5, left);
	column(world, 2.0, 0.0, 5, right);
	assert_true(steps_to_sleep(world, 480) > 0);
	sn_body_id ball;
	assert_sn_ok(scene_ball(world, sn_v3(0.0, 0.0, 1.5), 0.1, 1.0, scene_material(0.5, 0.0), &ball, NULL));
	// The ball is awake (new); the left column wakes when the ball reaches it.
	for (int i = 0; i < 240 && !sn_body_is_awake(world, left[0]); ++i)
	{
		step_ok(world, 1);
	}
	assert_true(sn_body_is_awake(world, left[0]) && sn_body_is_awake(world, left[4]));
	assert_false(sn_body_is_awake(world, right[0]) || sn_body_is_awake(world, right[4]));
	// Everything sleeps again; a force on the right column's bottom box wakes the column.
	assert_true(steps_to_sleep(world, 960) > 0);
	assert_sn_ok(sn_body_apply_force_at_center(world, right[0], sn_v3(0, 0, 1)));
	assert_true(sn_body_is_awake(world, right[4]));
	assert_false(sn_body_is_awake(world, left[2]));
	// sn_body_wake wakes its island; a rejected setter wakes nothing (a non-finite velocity).
	assert_sn_ok(sn_body_wake(world, left[2]));
	assert_true(sn_body_is_awake(world, left[0]) && sn_body_is_awake(world, ball));
	assert_true(steps_to_sleep(world, 960) > 0);
	assert_sn_error(sn_body_set_linear_velocity(world, left[1], sn_v3(NAN, 0, 0)), SN_ERR_NOT_FINITE);
	assert_false(sn_body_is_awake(world, left[1]));
	// Sleeping off: everything is awake.
	sn_sleep_settings off = sn_world_get_sleep_settings(world);
	off.enabled = false;
	assert_sn_ok(sn_world_set_sleep_settings(world, off));
	assert_int_equal(sn_world_get_awake_body_count(world), 11);
	sn_world_destroy(world);
}

// A sleeping articulation (a two-link arm resting on the ground with a held drive) wakes when its drive
// target changes, and then moves.
static void test_drive_target_wakes(void** state)
{
	(void)state;
	sn_world* world = sleepy_world(SN_SOLVER_TGS, 0.001);
	sn_link_def links[2] = { sn_default_link_def(), sn_default_link_def() };
	links[1].parent = 0;
	links[1].joint_type = SN_LINK_JOINT_REVOLUTE;
	links[1].parent_frame.p = sn_v3(0, 0, 0.5);
	links[1].mass = 1.0;
	links[1].center_of_mass = sn_v3(0, 0, 0.2);
	links[1].drive[0] = sn_default_drive();
	links[1].drive[0].enabled = true;
	links[1].drive[0].stiffness = 100.0;
	links[1].drive[0].damping = 20.0;
	sn_articulation_def ad = sn_default_articulation_def();
	sn_articulation_id arm;
	assert_sn_ok(sn_create_articulation(world, &ad, links, 2, &arm));
	assert_true(steps_to_sleep(world, 3000) > 0);
	assert_false(sn_articulation_is_awake(world, arm));
	assert_sn_ok(sn_articulation_set_drive_target(world, arm, 0, 0.5, 0.0));
	assert_true(sn_articulation_is_awake(world, arm));
	step_ok(world, 500);
	double q = 0.0;
	assert_sn_ok(sn_articulation_get_joint_positions(world, arm, &q, 1));
	print_message("MEASURE joint after the new target: %.6f rad (target 0.5)\n", q);
	assert_true(q > 0.3); // it moved towards its target
	sn_world_destroy(world);
}

// An awake island does exactly the same (bit for bit) whether or not a sleeping island shares its world:
// a box sliding on the ground beside a sleeping pile, against the same box alone.
static void test_awake_islands_unchanged(void** state)
{
	(void)state;
	sn_world* with = sleepy_world(SN_SOLVER_TGS, 1.0 / 240.0);
	sn_world* alone = sleepy_world(SN_SOLVER_TGS, 1.0 / 240.0);
	sn_body_id pile[10];
	column(with, -3.0, 0.0, 10, pile);
	assert_true(steps_to_sleep(with, 960) > 0);
	sn_body_id slider[2];
	for (int w = 0; w < 2; ++w)
	{
		sn_world* world = w == 0 ? with : alone;
		sn_transform pose = { sn_v3(0, 0, 0.1), sn_quat_identity() };
		assert_sn_ok(scene_box(world, pose, 0.1, 1.0, scene_material(0.5, 0.0), slider + w, NULL));
		assert_sn_ok(sn_body_set_linear_velocity(world, slider[w], sn_v3(2.0, 0.5, 0)));
	}
	for (int i = 0; i < 480; ++i)
	{
		step_ok(with, 1);
		step_ok(alone, 1);
		sn_transform a = sn_body_get_pose(with, slider[0]), b = sn_body_get_pose(alone, slider[1]);
		sn_vec3 va = sn_body_get_linear_velocity(with, slider[0]), vb = sn_body_get_linear_velocity(alone, slider[1]);
		if (!(a.p.x == b.p.x && a.p.y == b.p.y && a.p.z == b.p.z && va.x == vb.x && va.z == vb.z))
		{
			fail_msg("step %d: the awake box differs beside a sleeping pile", i);
		}
	}
	assert_false(sn_body_is_awake(with, pile[0]));
	sn_world_destroy(with);
	sn_world_destroy(alone);
}

// A snapshot of a world with a sleeping island and an awake body continues bit for bit.
static void test_sleep_snapshot(void** state)
{
	(void)state;
	sn_world* world = sleepy_world(SN_SOLVER_TGS, 1.0 / 240.0);
	sn_body_id pile[5];
	column(world, 0.0, 0.0, 5, pile);
	assert_true(steps_to_sleep(world, 960) > 0);
	sn_body_id ball;
	assert_sn_ok(scene_ball(world, sn_v3(0.0, 0.0, 1.6), 0.1, 1.0, scene_material(0.5, 0.0), &ball, NULL));
	step_ok(world, 10);
	size_t size = sn_world_snapshot_size(world);
	void* bytes = malloc(size);
	assert_non_null(bytes);
	assert_sn_ok(sn_world_snapshot_write(world, bytes, size, NULL));
	sn_world* copy = NULL;
	assert_sn_ok(sn_world_create_from_snapshot(bytes, size, NULL, &copy));
	free(bytes);
	assert_false(sn_body_is_awake(copy, pile[0]));
	bool woke = false;
	for (int i = 0; i < 240; ++i)
	{
		step_ok(world, 1);
		step_ok(copy, 1);
		woke = woke || sn_body_is_awake(copy, pile[0]);
		if (sn_world_state_hash(world) != sn_world_state_hash(copy))
		{
			fail_msg("step %d: the restored world differs", i);
		}
	}
	assert_true(woke); // the ball woke it (in both: the hashes agreed)
	sn_world_destroy(world);
	sn_world_destroy(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_piles_fall_asleep),  cmocka_unit_test(test_waking),
		cmocka_unit_test(test_drive_target_wakes), cmocka_unit_test(test_awake_islands_unchanged),
		cmocka_unit_test(test_sleep_snapshot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
