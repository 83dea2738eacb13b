// Articulations in world snapshots: a restored world continues bit for bit (drives, limits, friction,
// mimic joints, a floating base with a ball joint, forces applied for the next step, dead slots), keeps
// every id, and forged articulation fields are rejected even with a correct payload hash. The range a
// thread prefetches before a world's step holds what that step touches, in built and restored worlds.
#include "artic_support.h"

#include "artic/artic.h"
#include "world.h"

#include <math.h>

typedef struct scene
{
	sn_world* world;
	sn_articulation_id arm, chain, floater, swinger;
	sn_mimic_id mimic;
	sn_body_id box;
} scene;

// Distinctive values to find in the bytes when forging.
static const double chain_limit_lower = -0.4321, floater_mass = 3.14159, gearing = -0.875, stiffness = 12345.5,
					mimic_offset = 0.0123;

static void build(scene* s, sn_solver solver)
{
	sn_world_def wd = sn_default_world_def();
	wd.solver = solver;
	wd.id_tag = 0x5eed;
	assert_sn_ok(sn_world_create(&wd, &s->world));
	sn_world* w = s->world;
	// A maximal-coordinate body and joint live in the same world.
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = sn_v3(5, 0, 0);
	assert_sn_ok(sn_create_body(w, &bd, &s->box));
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	hd.base.body_b = s->box;
	hd.base.frame_a.p = sn_v3(5, 0, 0.5);
	hd.base.frame_b.p = sn_v3(0, 0, 0.5);
	sn_joint_id j;
	assert_sn_ok(sn_create_hinge_joint(w, &hd, &j));

	s->arm = make_arm(w);
	sn_drive drive = sn_articulation_get_drive(w, s->arm, 6);
	drive.stiffness = stiffness;
	drive.type = SN_DRIVE_ACCELERATION;
	drive.max_force = 50.0;
	assert_sn_ok(sn_articulation_set_drive(w, s->arm, 6, &drive));
	sn_articulation_id doomed = make_chain(w, 2); // a dead slot between live ones
	s->chain = make_chain(w, 5);
	assert_sn_ok(sn_destroy_articulation(w, doomed));
	assert_sn_ok(
		sn_articulation_set_limit(w, s->chain, 0, (sn_limit){ true, chain_limit_lower, 0.3, sn_soft_rigid() }));
	assert_sn_ok(
		sn_articulation_set_limit(w, s->chain, 2, (sn_limit){ true, -0.2, 0.2, sn_soft_stiffness(800.0, 10.0) }));

	sn_link_def links[3];
	links[0] = sn_default_link_def();
	links[0].mass = 2.0;
	links[1] = hinge_link(0, sn_v3(0.2, 0, 0), floater_mass, 0.3, sn_inertia_box(1.0, sn_v3(0.3, 0.05, 0.05)));
	links[1].joint_friction = 0.3;
	links[1].joint_damping = 0.2;
	links[1].armature = 0.01;
	links[2] = hinge_link(1, sn_v3(0.6, 0, 0), 0.5, 0.2, sn_inertia_box(0.5, sn_v3(0.2, 0.05, 0.05)));
	links[2].joint_type = SN_LINK_JOINT_SPHERICAL;
	links[2].initial_velocity[1] = 0.7;
	sn_articulation_def ad = sn_default_articulation_def();
	ad.fixed_base = false;
	ad.base_pose.p = sn_v3(0, 3, 1);
	ad.base_angular_velocity = sn_v3(0.1, 0.2, 0.3);
	assert_sn_ok(sn_create_articulation(w, &ad, links, 3, &s->floater));
	// A floating base with a spherical joint that nothing but gravity acts on: its midpoint extrapolates
	// from its last two solves, the base's and the three dofs' accelerations.
	links[1].joint_friction = 0.0;
	links[1].joint_damping = 0.0;
	ad.base_pose.p = sn_v3(0, -3, 1);
	ad.base_angular_velocity = sn_v3(-0.3, 0.5, 0.2);
	assert_sn_ok(sn_create_articulation(w, &ad, links, 3, &s->swinger));

	sn_mimic_def md = sn_default_mimic_def();
	md.articulation = s->chain;
	md.dofs[0] = 3;
	md.dofs[1] = 4;
	md.gearing[1] = gearing;
	md.soft = sn_soft_frequency(8.0, 0.5);
	md.max_force = 40.0;
	sn_mimic_id spare;
	assert_sn_ok(sn_create_mimic_joint(w, &md, &spare));
	md.soft = sn_soft_rigid();
	md.dofs[0] = 1;
	md.offset = mimic_offset;
	assert_sn_ok(sn_create_mimic_joint(w, &md, &s->mimic));
	assert_sn_ok(sn_destroy_mimic_joint(w, spare)); // a dead mimic slot
}

static uint8_t* take(sn_world* world, size_t* size)
{
	*size = sn_world_snapshot_size(world);
	uint8_t* bytes = malloc(*size);
	assert_non_null(bytes);
	assert_sn_ok(sn_world_snapshot_write(world, bytes, *size, NULL));
	return bytes;
}

static void continues_bit_for_bit(sn_solver solver)
{
	scene s;
	build(&s, solver);
	for (int i = 0; i < 150; ++i)
	{
		assert_sn_ok(sn_articulation_set_drive_target(s.world, s.arm, i % ARM_LINKS, 0.4 * sin(0.02 * i), 0.0));
		assert_sn_ok(sn_world_step(s.world));
	}
	// Inputs pending for the next step are part of the state.
	assert_sn_ok(sn_articulation_apply_joint_force(s.world, s.floater, 0, 1.5));
	assert_sn_ok(sn_articulation_apply_link_force(s.world, s.chain, 3, sn_v3(0, 2, 0), sn_v3(1, 0, 0)));
	size_t size;
	uint8_t* bytes = take(s.world, &size);
	sn_world* copy;
	assert_sn_ok(sn_world_create_from_snapshot(bytes, size, NULL, &copy));
	assert_true(sn_world_state_hash(copy) == sn_world_state_hash(s.world));
	double e1[ARM_LINKS], e2[ARM_LINKS];
	assert_sn_ok(sn_articulation_get_drive_efforts(s.world, s.arm, e1, ARM_LINKS));
	assert_sn_ok(sn_articulation_get_drive_efforts(copy, s.arm, e2, ARM_LINKS));
	assert_memory_equal(e1, e2, sizeof(e1));
	for (int i = 0; i < 300; ++i)
	{
		assert_sn_ok(sn_world_step(s.world));
		assert_sn_ok(sn_world_step(copy));
		if (sn_world_state_hash(copy) != sn_world_state_hash(s.world))
		{
			fail_msg("step %d after the restore: the copy no longer matches the original bit for bit", i);
		}
	}
	// Ids of the original name the same objects in the copy; new ids agree (free lists and tags kept).
	assert_true(sn_articulation_is_valid(copy, s.arm) && sn_articulation_is_valid(copy, s.chain));
	assert_true(sn_articulation_is_valid(copy, s.floater) && sn_mimic_joint_is_valid(copy, s.mimic));
	assert_true(sn_mimic_joint_get_force(copy, s.mimic) == sn_mimic_joint_get_force(s.world, s.mimic));
	sn_vec3 f1, f2, t1, t2;
	assert_sn_ok(sn_articulation_get_link_incoming_force(s.world, s.chain, 4, &f1, &t1));
	assert_sn_ok(sn_articulation_get_link_incoming_force(copy, s.chain, 4, &f2, &t2));
	assert_memory_equal(&f1, &f2, sizeof(f1));
	assert_memory_equal(&t1, &t2, sizeof(t1));
	sn_articulation_id a = make_chain(s.world, 1);
	sn_articulation_id b = make_chain(copy, 1);
	assert_true(sn_articulation_id_equals(a, b));
	sn_mimic_def md = sn_default_mimic_def();
	md.articulation = s.chain;
	sn_mimic_id ma, mb;
	assert_sn_ok(sn_create_mimic_joint(s.world, &md, &ma));
	assert_sn_ok(sn_create_mimic_joint(copy, &md, &mb));
	assert_true(sn_mimic_id_equals(ma, mb));
	free(bytes);
	sn_world_destroy(copy);
	sn_world_destroy(s.world);
}

static void test_restore_tgs(void** state)
{
	(void)state;
	continues_bit_for_bit(SN_SOLVER_TGS);
}

static void test_restore_pgs(void** state)
{
	(void)state;
	continues_bit_for_bit(SN_SOLVER_PGS);
}

static void test_corruption_rejected(void** state)
{
	(void)state;
	scene s;
	build(&s, SN_SOLVER_TGS);
	for (int i = 0; i < 20; ++i)
	{
		assert_sn_ok(sn_world_step(s.world));
	}
	size_t size;
	uint8_t* bytes = take(s.world, &size);
	sn_world* out = NULL;
	// Bit flips (the payload hash) and truncations (section bounds), sampled across the whole snapshot.
	for (size_t i = 0; i < size; i += 61)
	{
		bytes[i] ^= (uint8_t)(1u << (i % 8));
		assert_sn_error(sn_world_create_from_snapshot(bytes, size, NULL, &out), SN_ERR_BAD_SNAPSHOT);
		bytes[i] ^= (uint8_t)(1u << (i % 8));
	}
	for (size_t cut = 0; cut < size; cut += 97)
	{
		assert_sn_error(sn_world_create_from_snapshot(bytes, cut, NULL, &out), SN_ERR_BAD_SNAPSHOT);
	}
	assert_null(out);
	free(bytes);
	sn_world_destroy(s.world);
}

static uint64_t fnv1a(const uint8_t* p, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < n; ++i)
	{
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

// Replace the first occurrence of `value` (its bit pattern) by `forged`, fix the payload hash, and
// check that the restore rejects the field.
static void forge(const uint8_t* original, size_t size, double value, double forged, const char* what)
{
	uint8_t* bytes = malloc(size);
	assert_non_null(bytes);
	memcpy(bytes, original, size);
	uint8_t needle[8], patch[8];
	memcpy(needle, &value, 8);
	memcpy(patch, &forged, 8);
	size_t at = 0;
	for (size_t i = 32; i + 8 <= size; ++i)
	{
		if (memcmp(bytes + i, needle, 8) == 0)
		{
			at = i;
			break;
		}
	}
	if (at == 0)
	{
		fail_msg("%s: value %.17g not found in the snapshot", what, value);
	}
	memcpy(bytes + at, patch, 8);
	uint64_t h = fnv1a(bytes + 32, size - 32);
	for (int k = 0; k < 8; ++k)
	{
		bytes[24 + k] = (uint8_t)(h >> (8 * k));
	}
	sn_world* out = NULL;
	sn_error err = sn_world_create_from_snapshot(bytes, size, NULL, &out);
	if (err != SN_ERR_BAD_SNAPSHOT || out != NULL)
	{
		fail_msg("%s: forged snapshot gave %s", what, sn_error_name(err));
	}
	free(bytes);
}

static void test_forged_fields_rejected(void** state)
{
	(void)state;
	scene s;
	build(&s, SN_SOLVER_TGS);
	for (int i = 0; i < 10; ++i)
	{
		assert_sn_ok(sn_world_step(s.world));
	}
	size_t size;
	uint8_t* bytes = take(s.world, &size);
	// The untouched bytes restore (the forging itself is sound).
	sn_world* out;
	assert_sn_ok(sn_world_create_from_snapshot(bytes, size, NULL, &out));
	sn_world_destroy(out);
	forge(bytes, size, floater_mass, 0.0, "zero link mass");
	forge(bytes, size, floater_mass, NAN, "NaN link mass");
	forge(bytes, size, stiffness, -stiffness, "negative drive stiffness");
	forge(bytes, size, chain_limit_lower, 0.9, "limit lower above upper");
	forge(bytes, size, gearing, INFINITY, "infinite mimic gearing");
	forge(bytes, size, mimic_offset, NAN, "NaN mimic offset");
	// The free accelerations kept for the next step's midpoint prediction: the floater's last (its joint
	// friction is a row, so it predicts from the last solve alone), the swinger's last two, its base's too.
	const artic* floater = artic_get(s.world, s.floater);
	assert_true(floater->free_history == ARTIC_FREE_AFTER_ROWS && floater->qdd_free[0] != 0.0);
	forge(bytes, size, floater->qdd_free[0], INFINITY, "infinite free acceleration");
	const artic* swinger = artic_get(s.world, s.swinger);
	assert_true(swinger->free_history == ARTIC_FREE_TWO && swinger->qdd_prev[2] != 0.0);
	forge(bytes, size, swinger->qdd_prev[2], NAN, "NaN free acceleration of the solve before");
	assert_true(swinger->base_a_prev.w.x != 0.0);
	forge(bytes, size, swinger->base_a_prev.w.x, INFINITY, "infinite base acceleration of the solve before");
	free(bytes);
	sn_world_destroy(s.world);
}

// [p, p + count * size) lies in [lo, hi).
static bool within(const void* p, size_t count, size_t size, const unsigned char* lo, const unsigned char* hi)
{
	const unsigned char* c = p;
	return c >= lo && c + count * size <= hi;
}

// sn_world_prefetch requests the first block_hot bytes of each articulation's block in a world without
// shapes or joints on links: every array such a step reads or writes must lie there, in a built world and
// in one restored from a snapshot, and the cold ones (the def's copy, the inputs) after it. With a shape,
// the plan takes the whole block and the bodies. The hint itself changes nothing.
static void test_prefetch_range_holds_the_step_state(void** state)
{
	(void)state;
	scene s;
	build(&s, SN_SOLVER_TGS);
	size_t size;
	uint8_t* bytes = take(s.world, &size);
	sn_world* copy;
	assert_sn_ok(sn_world_create_from_snapshot(bytes, size, NULL, &copy));
	free(bytes);
	const sn_world* worlds[2] = { s.world, copy };
	int checked = 0;
	for (int w = 0; w < 2; ++w)
	{
		const artic_store* store = worlds[w]->artics;
		for (int i = 0; i < store->high; ++i)
		{
			const artic* a = store->items + i;
			if (!a->live)
			{
				continue;
			}
			const unsigned char* lo = a->block;
			const unsigned char* hot = lo + a->block_hot;
			const unsigned char* end = lo + a->block_size;
			const size_t n = (size_t)a->link_count, d = (size_t)a->dof_count;
			assert_true(a->block_hot <= a->block_size);
			assert_true(within(a->links, n, sizeof(artic_link), lo, hot));
			assert_true(within(a->k, n, sizeof(sn_mat33), lo, hot));
			assert_true(within(a->kin, n, sizeof(artic_kin), lo, hot));
			assert_true(within(a->work, n, sizeof(artic_work), lo, hot));
			assert_true(within(a->sph, n, sizeof(sn_quat), lo, hot));
			assert_true(within(a->subtree, n, sizeof(int32_t), lo, hot));
			assert_true(within(a->reach, n, sizeof(int32_t), lo, hot));
			assert_true(within(a->needed, n, 1, lo, hot));
			assert_true(within(a->link_contact, n, 1, lo, hot));
			assert_true(within(a->link_body, n, sizeof(int32_t), lo, hot));
			assert_true(within(a->incoming, n, sizeof(sv6), lo, hot)); // written by every later substep
			const double* dof_arrays[] = { a->q, a->qd, a->qd_free, a->qdd_free, a->qdd_prev, a->effort };
			for (size_t k = 0; k < sizeof(dof_arrays) / sizeof(dof_arrays[0]); ++k)
			{
				assert_true(within(dof_arrays[k], d, sizeof(double), lo, hot));
			}
			assert_true(within(a->warm, d * ARTIC_WARM_SLOTS, sizeof(double), lo, hot));
			assert_true(within(a->drives, d, sizeof(sn_drive), lo, hot));
			assert_true(within(a->limits, d, sizeof(sn_limit), lo, hot));
			assert_true(within(a->dof_link, d, sizeof(int32_t), lo, hot));
			assert_true(within(a->dof_slot, d, sizeof(int32_t), lo, hot));
			assert_true(within(a->limit_near, d, 1, lo, hot));
			assert_true(within(a->info, n, sizeof(artic_link_info), hot, end));
			assert_true(within(a->joint_force, d, sizeof(double), hot, end));
			assert_true(within(a->link_force, n, sizeof(sv6), hot, end));
			checked += 1;
		}
	}
	assert_int_equal(checked, 8); // arm, chain, floater and swinger in each world
	sn_world_prefetch(NULL);
	for (int i = 0; i < 50; ++i)
	{
		sn_world_prefetch(copy);
		assert_sn_ok(sn_world_step(s.world));
		sn_world_prefetch(s.world);
		assert_sn_ok(sn_world_step(copy));
		assert_true(sn_world_state_hash(copy) == sn_world_state_hash(s.world));
	}
	// The plan the last step left: the world's record, the articulation and mimic records, then the hot part
	// of the first live articulation's block, within the budget.
	const sn_world* w = s.world;
	assert_true(w->prefetch_count >= 4 && w->prefetch_count <= WORLD_PREFETCH_RANGES);
	assert_true(w->prefetch[0].start == (uintptr_t)w && w->prefetch[0].bytes == sizeof(*w));
	assert_true(w->prefetch[1].start == (uintptr_t)w->artics->items);
	const artic* first = w->artics->items;
	while (!first->live)
	{
		first += 1;
	}
	assert_true(w->prefetch[2].start == (uintptr_t)w->artics->mimics); // the scene has mimic joints
	assert_true(w->prefetch[3].start == (uintptr_t)first->block);
	size_t planned = 0;
	for (int i = 0; i < w->prefetch_count; ++i)
	{
		planned += w->prefetch[i].bytes;
	}
	assert_true(planned <= SN_WORLD_PREFETCH_MAX_BYTES);
	sn_world_destroy(copy);

	// A world of one articulation: its hot part; with a shape on a link, the collision stage reads the
	// links' frames and bodies as well, so the plan takes the whole block and the bodies.
	sn_world_def wd = sn_default_world_def();
	sn_world* lone;
	assert_sn_ok(sn_world_create(&wd, &lone));
	sn_articulation_id chain = make_chain(lone, 3);
	sn_world_prefetch(lone); // nothing planned yet
	assert_int_equal(lone->prefetch_count, 0);
	assert_sn_ok(sn_world_step(lone));
	const artic* a = lone->artics->items;
	assert_int_equal(lone->prefetch_count, 3);
	assert_true(lone->prefetch[2].start == (uintptr_t)a->block && lone->prefetch[2].bytes == a->block_hot);
	sn_shape_def sd = sn_default_shape_def();
	sd.body = sn_articulation_get_link_body(lone, chain, 2);
	sn_shape_id ball;
	assert_sn_ok(sn_create_shape(lone, &sd, &ball));
	assert_sn_ok(sn_world_step(lone));
	assert_int_equal(lone->prefetch_count, 4);
	assert_true(lone->prefetch[2].start == (uintptr_t)a->block && lone->prefetch[2].bytes == a->block_size);
	assert_true(lone->prefetch[3].start == (uintptr_t)lone->bodies);
	sn_world_destroy(lone);
	sn_world_destroy(s.world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restore_tgs),
		cmocka_unit_test(test_restore_pgs),
		cmocka_unit_test(test_corruption_rejected),
		cmocka_unit_test(test_forged_fields_rejected),
		cmocka_unit_test(test_prefetch_range_holds_the_step_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
