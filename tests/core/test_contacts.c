// Contact behaviour that is not a row of the solver conformance matrix (test_conformance.c holds the
// closed forms of issue 13: resting, incline, sliding, bounce, rolling, stack, soft contact):
//   - the articulated two-finger gripper (scenes/contacts.h, the peer engines' definition) lifts a 0.5 kg
//     box 0.2 m and holds it 5 s with less than 5 mm slip, and its lifting drive carries the box's weight;
//   - the 20-wide pyramid of 210 boxes (C6) stands 10 s in TGS at 1/240 s;
//   - warm starts follow the manifold's points by feature id: the normal impulses of a resting box whose
//     corners carry different loads are, point by point, the previous step's.
// Scenes and figures come from the scene library's runners (scenes/contact_runs.h), which bench_contacts
// shares. The gripper runs in all four solvers (in XPBD and DIRECT worlds an island with an articulation is
// solved by the articulations' TGS path, so its figures there are TGS's); the warm-start check is PGS's and
// TGS's (XPBD and DIRECT warm-start through their own multipliers); a restored snapshot continues bit for bit
// in all four.
#include "core_support.h"

#include <math.h>
#include <stdlib.h>

static const double g = SCENE_GRAVITY;

// The pyramid's run (s). Under AddressSanitizer and UndefinedBehaviorSanitizer (a debug build) one
// simulated second of the 210 boxes took 34 s on a loaded two-core machine, so the 10 s of the release
// build would take about 6 minutes, near CTest's 10 minute limit; the sanitized run keeps 1 s (240 steps:
// every contact pair and manifold of the pile, the paths the sanitizers check) and the release build checks
// the whole 10 s (45 s there).
#ifdef SINEW_TEST_SANITIZED
#define PYRAMID_SECONDS 1.0
#else
#define PYRAMID_SECONDS 10.0
#endif

static void run_ok(const scene_run_info* info)
{
	if (info->error != SN_ERR_OK)
	{
		fail_msg("run failed at step %d: %s", info->steps + 1, sn_error_name(info->error));
	}
	assert_int_equal(info->steps, info->steps_planned);
	assert_false(info->diverged);
}

// ---- the gripper ------------------------------------------------------------------------------------------

static void test_gripper_lifts_and_holds(void** state)
{
	(void)state;
	const sn_solver solvers[4] = { SN_SOLVER_PGS, SN_SOLVER_TGS, SN_SOLVER_XPBD, SN_SOLVER_DIRECT };
	for (int s = 0; s < 4; ++s)
	{
		scene_run_options o = scene_run_options_make(solvers[s], 0.001);
		scene_gripper_result r;
		scene_run_gripper(&o, &r);
		run_ok(&r.run);
		print_message("MEASURE %s: gripper lift at %.1f s %.6f m, rise at the end %.6f m, slip over the hold %.3g m, "
					  "lift effort before %.9g N, holding %.9g N (unloaded %.9g N, load %.9g N, box weight %.9g N)\n",
					  sn_solver_name(solvers[s]), SCENE_GRIPPER_LIFT_END, r.lift_m, r.rise_end_m, r.slip_m,
					  r.effort_before_N, r.effort_hold_N, r.effort_unloaded_N, r.effort_load_N, r.effort_expected_N);
		assert_true(r.held);
		// The box rises with the palm but for its slip in the grasp. The palm's drive (1e4 N/m) held it
		// effort_before / k below its start when the fingers closed on the box, and holds it effort_hold / k
		// below 0.2 m at the end: the box, gripped in between, rises 0.2 - (hold - before) / k (1.2 mm less
		// than 0.2 m), to within its slip, which issue 13 bounds by 5 mm.
		const double expected_rise = SCENE_GRIPPER_LIFT - (r.effort_hold_N - r.effort_before_N) / 1e4;
		print_message("MEASURE %s: gripper box rise %.9f m, expected from the drive's deflections %.9f m\n",
					  sn_solver_name(solvers[s]), r.rise_end_m, expected_rise);
		assert_near(r.rise_end_m, expected_rise, 5e-3, "issue 13: lifted 0.2 m, slipping less than 5 mm");
		assert_below(r.slip_m, 5e-3, "issue 13: less than 5 mm slip over the 5 s hold");
		// At rest in the hold the lift drive carries the palm, the fingers and the box (static equilibrium
		// of the articulation with the box hanging by friction; the lift is a slider, its arm 1): the box
		// adds its weight. The palm's drive (damping ratio 1.15, time constant about 0.02 s) has settled to
		// rounding within the 4 s of the hold before the averaged last second.
		assert_near(r.effort_load_N, r.effort_expected_N, 1e-6 * r.effort_expected_N, "static equilibrium");
	}
}

// ---- the pyramid ------------------------------------------------------------------------------------------

static void test_pyramid_stands(void** state)
{
	(void)state;
	scene_run_options o = scene_run_options_make(SN_SOLVER_TGS, 1.0 / 240.0);
	o.duration = PYRAMID_SECONDS;
	scene_stack_result r;
	scene_run_c6(&o, &r);
	run_ok(&r.run);
	print_message("MEASURE tgs 1/240 s: pyramid of 210 boxes after %g s: largest displacement %.3g m, top sink %.3g m, "
				  "deepest contact %.3g m, %.1f contact points per step\n",
				  PYRAMID_SECONDS, r.displacement_max_m, r.top_sink_m, r.run.penetration_max, r.run.contacts_per_step);
	assert_true(r.stable);
	assert_below(r.displacement_max_m, 0.05, "C6's criterion: every box within 0.05 m of its start");
}

// ---- warm starts by feature id ------------------------------------------------------------------------------

static void test_warm_start_follows_features(void** state)
{
	(void)state;
	const sn_solver solvers[2] = { SN_SOLVER_PGS, SN_SOLVER_TGS };
	for (int s = 0; s < 2; ++s)
	{
		sn_world* world = test_scene_world(solvers[s], 0.001);
		sn_body_id box;
		assert_sn_ok(scene_resting_box(world, 0.1, scene_material(SCENE_CONTACT_FRICTION, 0.0), &box));
		// The centre of mass off the middle towards +x and +y: the four corners carry four different loads,
		// so a point that took over another's impulse would show.
		assert_sn_ok(sn_body_set_mass_properties(world, box, 1.0, sn_inertia_box(1.0, sn_v3(0.1, 0.1, 0.1)),
												 sn_v3(0.04, 0.02, 0.0)));
		for (int i = 0; i < 1000; ++i)
		{
			assert_sn_ok(sn_world_step(world));
		}
		sn_contact before, after;
		assert_int_equal(sn_body_get_contacts(world, box, &before, 1), 1);
		assert_int_equal(before.point_count, 4);
		assert_sn_ok(sn_world_step(world));
		assert_int_equal(sn_body_get_contacts(world, box, &after, 1), 1);
		assert_int_equal(after.point_count, 4);
		double total = 0.0, worst = 0.0, lowest = INFINITY, highest = 0.0;
		for (int k = 0; k < after.point_count; ++k)
		{
			const sn_contact_point* p = after.points + k;
			int match = -1;
			for (int j = 0; j < before.point_count; ++j)
			{
				if (before.points[j].feature_id == p->feature_id)
				{
					assert_int_equal(match, -1); // feature ids are distinct within a manifold
					match = j;
				}
			}
			assert_true(match >= 0);
			assert_true(p->persisted);
			worst = fmax(worst, fabs(p->normal_impulse - before.points[match].normal_impulse));
			total += p->normal_impulse;
			lowest = fmin(lowest, p->normal_impulse);
			highest = fmax(highest, p->normal_impulse);
		}
		const double weight_impulse = 1.0 * g * 0.001;
		print_message("MEASURE %s: resting box, 4 points: largest change of a point's normal impulse in a step %.3g "
					  "N*s (points carry %.6g to %.6g N*s), total %.12g N*s (m g h %.12g)\n",
					  sn_solver_name(solvers[s]), worst, lowest, highest, total, weight_impulse);
		// The loads differ by far more than the tolerance below (the off-centre mass shifts tenths of the
		// weight between the corners).
		assert_true(highest - lowest > 0.1 * weight_impulse);
		// At rest each point starts from its own impulse of the last step (matched by feature id) and the
		// sweeps have almost nothing left to change. Four corners hold the box statically indeterminately: one
		// mode of their loads (the diagonals trading load) is free, and the sweeps leave it wandering by up to
		// 4e-8 of the weight's impulse m g h per step (measured over 20 s in both solvers). A point that took
		// over another corner's impulse, or started from none, would change by 0.1 m g h or more.
		assert_below(worst, 1e-7 * weight_impulse, "warm start by feature id at rest");
		assert_near(total, weight_impulse, 1e-9 * weight_impulse, "the points carry the weight");
		sn_world_destroy(world);
	}
}

// ---- snapshots ------------------------------------------------------------------------------------------------

// A world in contact, snapshotted mid-run and restored, continues bit for bit in every solver: the
// manifolds with their warm starts are part of the snapshot. A box resting off-centre (four corners with
// four loads), a second box sliding into it and a ball bouncing with restitution 0.5, at 1 ms.
static void test_snapshot_continues(void** state)
{
	(void)state;
	const sn_solver solvers[4] = { SN_SOLVER_PGS, SN_SOLVER_TGS, SN_SOLVER_XPBD, SN_SOLVER_DIRECT };
	for (int s = 0; s < 4; ++s)
	{
		sn_world* world = test_scene_world(solvers[s], 0.001);
		sn_body_id box;
		assert_sn_ok(scene_resting_box(world, 0.1, scene_material(SCENE_CONTACT_FRICTION, 0.0), &box));
		assert_sn_ok(sn_body_set_mass_properties(world, box, 1.0, sn_inertia_box(1.0, sn_v3(0.1, 0.1, 0.1)),
												 sn_v3(0.04, 0.02, 0.0)));
		sn_body_def bd = sn_default_body_def();
		bd.pose.p = sn_v3(-0.5, 0.0, 0.1);
		bd.linear_velocity = sn_v3(1.5, 0.0, 0.0);
		sn_body_id slider, ball;
		assert_sn_ok(sn_create_body(world, &bd, &slider));
		sn_shape_def sd = sn_default_shape_def();
		sd.body = slider;
		sd.geometry = sn_geometry_box(sn_v3(0.1, 0.1, 0.1));
		sd.material = scene_material(0.3, 0.0);
		sn_shape_id shape;
		assert_sn_ok(sn_create_shape(world, &sd, &shape));
		assert_sn_ok(sn_body_set_mass_from_shapes(world, slider, 1000.0));
		bd.pose.p = sn_v3(0.6, 0.0, 0.5);
		bd.linear_velocity = sn_v3(0.0, 0.0, 0.0);
		assert_sn_ok(sn_create_body(world, &bd, &ball));
		sd.body = ball;
		sd.geometry = sn_geometry_sphere(0.1);
		sd.material = scene_material(SCENE_CONTACT_FRICTION, 0.5);
		assert_sn_ok(sn_create_shape(world, &sd, &shape));
		assert_sn_ok(sn_body_set_mass_from_shapes(world, ball, 1000.0));
		for (int i = 0; i < 300; ++i)
		{
			assert_sn_ok(sn_world_step(world));
		}
		size_t size = sn_world_snapshot_size(world), written = 0;
		uint8_t* bytes = malloc(size);
		assert_non_null(bytes);
		assert_sn_ok(sn_world_snapshot_write(world, bytes, size, &written));
		sn_world* copy = NULL;
		assert_sn_ok(sn_world_create_from_snapshot(bytes, written, NULL, &copy));
		int points = 0;
		for (int i = 0; i < 400; ++i)
		{
			assert_sn_ok(sn_world_step(world));
			assert_sn_ok(sn_world_step(copy));
			assert_true(sn_world_state_hash(world) == sn_world_state_hash(copy));
			points += sn_world_get_collision_stats(world).points;
		}
		sn_contact a, b;
		assert_int_equal(sn_body_get_contacts(world, box, &a, 1), sn_body_get_contacts(copy, box, &b, 1));
		assert_memory_equal(&a, &b, sizeof(a));
		print_message("MEASURE %s: contact scene restored from a snapshot: 400 steps bit for bit, %d contact points\n",
					  sn_solver_name(solvers[s]), points);
		assert_true(points > 400); // the scene does touch
		free(bytes);
		sn_world_destroy(copy);
		sn_world_destroy(world);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gripper_lifts_and_holds),
		cmocka_unit_test(test_warm_start_follows_features),
		cmocka_unit_test(test_pyramid_stands),
		cmocka_unit_test(test_snapshot_continues),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
