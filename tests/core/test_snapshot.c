// Snapshots: a world restored from its snapshot continues bit for bit, keeps every id (dead slots and
// free lists included), and bytes from outside are validated: any corruption is rejected with
// SN_ERR_BAD_SNAPSHOT and creates nothing.
#include "support.h"

#include "sinew/sinew.h"

#include <stdlib.h>
#include <string.h>

typedef struct scene
{
	sn_world* world;
	sn_body_id bodies[8];
	sn_joint_id joints[8];
} scene;

static sn_body_id add_box(sn_world* world, sn_vec3 at, sn_body_type type)
{
	sn_body_def bd = sn_default_body_def();
	bd.type = type;
	bd.pose.p = at;
	bd.inertia = sn_inertia_box(1.0, sn_v3(0.1, 0.2, 0.3));
	bd.angular_velocity = sn_v3(0.1, 0.2, 0.3);
	sn_body_id id;
	assert_sn_ok(sn_create_body(world, &bd, &id));
	return id;
}

// A scene with every joint type, limits, a motor, springs, a kinematic body and a destroyed slot.
static void build(scene* s, sn_solver solver)
{
	sn_world_def wd = sn_default_world_def();
	wd.solver = solver;
	assert_sn_ok(sn_world_create(&wd, &s->world));
	sn_world* w = s->world;
	for (int i = 0; i < 8; ++i)
	{
		s->bodies[i] = add_box(w, sn_v3(0.5 * i, 0.1 * i, -0.2 * i), i == 7 ? SN_BODY_KINEMATIC : SN_BODY_DYNAMIC);
	}
	sn_body_id doomed = add_box(w, sn_v3(9, 9, 9), SN_BODY_DYNAMIC);
	assert_sn_ok(sn_destroy_body(w, doomed));

	sn_hinge_joint_def hinge = sn_default_hinge_joint_def();
	hinge.base.body_b = s->bodies[0];
	hinge.limit = (sn_limit){ true, -0.5, 0.5, sn_soft_rigid() };
	hinge.motor = (sn_motor){ true, 1.0, 2.0 };
	assert_sn_ok(sn_create_hinge_joint(w, &hinge, s->joints + 0));

	sn_prismatic_joint_def prism = sn_default_prismatic_joint_def();
	prism.base.body_a = s->bodies[0];
	prism.base.body_b = s->bodies[1];
	prism.base.frame_b.p = sn_v3(-0.5, 0, 0);
	prism.spring = (sn_spring){ true, 0.1, sn_soft_stiffness(50.0, 2.0), INFINITY };
	assert_sn_ok(sn_create_prismatic_joint(w, &prism, s->joints + 1));

	sn_spherical_joint_def ball = sn_default_spherical_joint_def();
	ball.base.body_a = s->bodies[1];
	ball.base.body_b = s->bodies[2];
	ball.swing = (sn_cone_limit){ true, 0.4, 0.7, sn_soft_rigid() };
	ball.twist = (sn_limit){ true, -0.3, 0.3, sn_soft_rigid() };
	assert_sn_ok(sn_create_spherical_joint(w, &ball, s->joints + 2));

	sn_cylindrical_joint_def cyl = sn_default_cylindrical_joint_def();
	cyl.base.body_a = s->bodies[2];
	cyl.base.body_b = s->bodies[3];
	assert_sn_ok(sn_create_cylindrical_joint(w, &cyl, s->joints + 3));

	sn_distance_joint_def dist = sn_default_distance_joint_def();
	dist.base.body_a = s->bodies[3];
	dist.base.body_b = s->bodies[4];
	dist.length = 0.6;
	dist.spring_enabled = true;
	dist.spring = sn_soft_frequency(5.0, 0.3);
	dist.limit = (sn_limit){ true, 0.4, 0.8, sn_soft_rigid() };
	assert_sn_ok(sn_create_distance_joint(w, &dist, s->joints + 4));

	sn_six_axis_joint_def six = sn_default_six_axis_joint_def();
	six.base.body_a = s->bodies[4];
	six.base.body_b = s->bodies[5];
	six.axes[SN_AXIS_Y].mode = SN_AXIS_LIMITED;
	six.axes[SN_AXIS_Y].lower = -0.1;
	six.axes[SN_AXIS_Y].upper = 0.1;
	six.axes[SN_AXIS_RZ].mode = SN_AXIS_FREE;
	assert_sn_ok(sn_create_six_axis_joint(w, &six, s->joints + 5));

	sn_fixed_joint_def weld = sn_default_fixed_joint_def();
	weld.base.body_a = s->bodies[5];
	weld.base.body_b = s->bodies[6];
	weld.base.break_force = 1e6;
	assert_sn_ok(sn_create_fixed_joint(w, &weld, s->joints + 6));

	sn_hinge_joint_def drive = sn_default_hinge_joint_def();
	drive.base.body_a = s->bodies[7];
	drive.base.body_b = s->bodies[6];
	assert_sn_ok(sn_create_hinge_joint(w, &drive, s->joints + 7));
	assert_sn_ok(sn_body_set_linear_velocity(w, s->bodies[7], sn_v3(0.2, 0, 0)));
}

static uint8_t* take(sn_world* world, size_t* size)
{
	*size = sn_world_snapshot_size(world);
	uint8_t* bytes = malloc(*size);
	assert_non_null(bytes);
	size_t written = 0;
	assert_sn_ok(sn_world_snapshot_write(world, bytes, *size, &written));
	assert_int_equal(written, *size);
	return bytes;
}

static void continues_bit_for_bit(sn_solver solver)
{
	scene s;
	build(&s, solver);
	for (int i = 0; i < 200; ++i)
	{
		assert_sn_ok(sn_world_step(s.world));
	}
	size_t size;
	uint8_t* bytes = take(s.world, &size);
	sn_world* copy;
	assert_sn_ok(sn_world_create_from_snapshot(bytes, size, NULL, &copy));
	assert_true(sn_world_state_hash(copy) == sn_world_state_hash(s.world));
	for (int i = 0; i < 300; ++i)
	{
		assert_sn_ok(sn_world_step(s.world));
		assert_sn_ok(sn_world_step(copy));
	}
	assert_true(sn_world_state_hash(copy) == sn_world_state_hash(s.world));
	// Every id of the original names the same object in the copy, and new ids agree (free list).
	for (int i = 0; i < 8; ++i)
	{
		assert_true(sn_body_is_valid(copy, s.bodies[i]));
		assert_true(sn_joint_is_valid(copy, s.joints[i]));
	}
	sn_body_id a = add_box(s.world, sn_v3(0, 0, 0), SN_BODY_DYNAMIC);
	sn_body_id b = add_box(copy, sn_v3(0, 0, 0), SN_BODY_DYNAMIC);
	assert_true(sn_body_id_equals(a, b));
	assert_int_equal(sn_world_get_step_count(copy), sn_world_get_step_count(s.world));
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

// XPBD keeps no state between steps beyond the bodies and joints; DIRECT keeps its warm table (where the
// active set starts) in the joints and analyses the joint graph again, to the same order.
static void test_restore_xpbd(void** state)
{
	(void)state;
	continues_bit_for_bit(SN_SOLVER_XPBD);
}

static void test_restore_direct(void** state)
{
	(void)state;
	continues_bit_for_bit(SN_SOLVER_DIRECT);
}

static void test_small_buffer(void** state)
{
	(void)state;
	scene s;
	build(&s, SN_SOLVER_TGS);
	size_t size = sn_world_snapshot_size(s.world);
	uint8_t* bytes = malloc(size);
	size_t written = 0;
	assert_sn_error(sn_world_snapshot_write(s.world, bytes, size - 1, &written), SN_ERR_CAPACITY);
	assert_int_equal(written, size);
	free(bytes);
	sn_world_destroy(s.world);
}

// Every single-bit flip and every truncation is rejected (the payload hash catches flips that would
// still parse; the header checks catch the rest).
static void test_corruption_rejected(void** state)
{
	(void)state;
	scene s;
	build(&s, SN_SOLVER_TGS);
	size_t size;
	uint8_t* bytes = take(s.world, &size);
	sn_world* out = NULL;
	for (size_t i = 0; i < size; i += 7)
	{
		bytes[i] ^= (uint8_t)(1u << (i % 8));
		assert_sn_error(sn_world_create_from_snapshot(bytes, size, NULL, &out), SN_ERR_BAD_SNAPSHOT);
		bytes[i] ^= (uint8_t)(1u << (i % 8));
	}
	for (size_t cut = 0; cut < size; cut += 13)
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

// A forged snapshot with a correct hash but a negative mass is still rejected: fields are validated.
static void test_forged_field_rejected(void** state)
{
	(void)state;
	sn_world_def wd = sn_default_world_def();
	sn_world* world;
	assert_sn_ok(sn_world_create(&wd, &world));
	sn_body_def bd = sn_default_body_def();
	bd.mass = 2.5;
	sn_body_id id;
	assert_sn_ok(sn_create_body(world, &bd, &id));
	size_t size;
	uint8_t* bytes = take(world, &size);
	// Find the mass (2.5 as little-endian bits) and make it negative.
	double mass = 2.5, negative = -2.5;
	uint8_t needle[8], patch[8];
	memcpy(needle, &mass, 8);
	memcpy(patch, &negative, 8);
	size_t at = 0;
	for (size_t i = 32; i + 8 <= size; ++i)
	{
		if (memcmp(bytes + i, needle, 8) == 0)
		{
			at = i;
			break;
		}
	}
	assert_true(at > 0);
	memcpy(bytes + at, patch, 8);
	uint64_t h = fnv1a(bytes + 32, size - 32);
	for (int k = 0; k < 8; ++k)
	{
		bytes[24 + k] = (uint8_t)(h >> (8 * k));
	}
	sn_world* out = NULL;
	assert_sn_error(sn_world_create_from_snapshot(bytes, size, NULL, &out), SN_ERR_BAD_SNAPSHOT);
	assert_null(out);
	free(bytes);
	sn_world_destroy(world);
}

// A snapshot says its format version, and bytes of another version are told apart from damage.
static void test_version(void** state)
{
	(void)state;
	scene s;
	build(&s, SN_SOLVER_TGS);
	size_t size;
	uint8_t* bytes = take(s.world, &size);
	assert_int_equal(sn_snapshot_version(bytes, size), SN_SNAPSHOT_VERSION);
	// Another version (the header's version is outside the payload's hash): refused, and said.
	uint32_t older = SN_SNAPSHOT_VERSION - 2;
	for (int k = 0; k < 4; ++k)
	{
		bytes[8 + k] = (uint8_t)(older >> (8 * k));
	}
	assert_int_equal(sn_snapshot_version(bytes, size), older);
	sn_world* out = NULL;
	assert_sn_error(sn_world_create_from_snapshot(bytes, size, NULL, &out), SN_ERR_BAD_SNAPSHOT);
	assert_null(out);
	// Not a snapshot at all: 0.
	assert_int_equal(sn_snapshot_version(bytes, 16), 0);
	assert_int_equal(sn_snapshot_version(NULL, size), 0);
	bytes[0] = 'X';
	assert_int_equal(sn_snapshot_version(bytes, size), 0);
	free(bytes);
	sn_world_destroy(s.world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restore_tgs),           cmocka_unit_test(test_restore_pgs),
		cmocka_unit_test(test_restore_xpbd),          cmocka_unit_test(test_restore_direct),
		cmocka_unit_test(test_small_buffer),          cmocka_unit_test(test_corruption_rejected),
		cmocka_unit_test(test_forged_field_rejected), cmocka_unit_test(test_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
