// URDF round trips through the parse layer: six small robots (a pendulum, a double pendulum, a prismatic
// joint, a floating base, a branching tree, a gripper with mimic joints) give the expected topology,
// masses, inertias, frames, limits, mimic couplings and visuals. Also the conversions that the build layer
// relies on (rpy, the axis rotation, the mimic sign) and the import limits.
//
// Tolerances: values read from text are compared exactly (strtod is correctly rounded, and the parser
// stores what it reads). Rotations built from rpy or axes go through sin, cos and a normalisation: a few
// ulps, so 1e-15 on unit-length quantities.
#include "support.h"

#include "sinew/model.h"

#include <stdlib.h>
#include <string.h>

static const double rot_tol = 1e-15; // a few ulps of sin/cos/sqrt on unit quantities

static snm_model* load(const char* name)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", SINEW_TEST_URDF_DIR, name);
	snm_model* model = NULL;
	snm_error error;
	sn_error err = snm_load_urdf_file(path, NULL, &model, &error);
	if (err != SN_ERR_OK)
	{
		fail_msg("%s: %s", name, error.text);
	}
	assert_int_equal(error.code, SN_ERR_OK);
	return model;
}

static const snm_joint* joint_named(const snm_model* m, const char* name)
{
	int j = snm_model_find_joint(m, name);
	if (j < 0)
	{
		fail_msg("no joint %s", name);
	}
	return &m->joints[j];
}

static const snm_link* link_named(const snm_model* m, const char* name)
{
	int l = snm_model_find_link(m, name);
	if (l < 0)
	{
		fail_msg("no link %s", name);
	}
	return &m->links[l];
}

static void assert_vec_equal(sn_vec3 a, double x, double y, double z)
{
	if (a.x != x || a.y != y || a.z != z)
	{
		fail_msg("(%.17g, %.17g, %.17g) != (%.17g, %.17g, %.17g)", a.x, a.y, a.z, x, y, z);
	}
}

static void assert_vec_near(sn_vec3 a, sn_vec3 b, double tol, const char* reason)
{
	assert_near(a.x, b.x, tol, reason);
	assert_near(a.y, b.y, tol, reason);
	assert_near(a.z, b.z, tol, reason);
}

static bool is_identity_quat(sn_quat q)
{
	return q.x == 0.0 && q.y == 0.0 && q.z == 0.0 && q.w == 1.0;
}

// Rotation matrix of URDF rpy, written out: R = Rz(yaw) Ry(pitch) Rx(roll), by columns.
static sn_mat33 rpy_matrix(double r, double p, double y)
{
	double cr = cos(r), sr = sin(r), cp = cos(p), sp = sin(p), cy = cos(y), sy = sin(y);
	sn_mat33 m;
	m.cx = sn_v3(cy * cp, sy * cp, -sp);
	m.cy = sn_v3(cy * sp * sr - sy * cr, sy * sp * sr + cy * cr, cp * sr);
	m.cz = sn_v3(cy * sp * cr + sy * sr, sy * sp * cr - cy * sr, cp * cr);
	return m;
}

static void assert_rotation_is(sn_quat q, sn_mat33 r, const char* reason)
{
	assert_vec_near(sn_rotate(q, sn_v3(1, 0, 0)), r.cx, rot_tol, reason);
	assert_vec_near(sn_rotate(q, sn_v3(0, 1, 0)), r.cy, rot_tol, reason);
	assert_vec_near(sn_rotate(q, sn_v3(0, 0, 1)), r.cz, rot_tol, reason);
}

static void test_pendulum(void** state)
{
	(void)state;
	snm_model* m = load("pendulum.urdf");
	assert_string_equal(m->name, "pendulum");
	assert_int_equal(m->link_count, 2);
	assert_int_equal(m->joint_count, 1);
	assert_string_equal(m->links[m->root].name, "base");
	assert_int_equal(m->link_order[0], snm_model_find_link(m, "base"));
	assert_int_equal(m->link_order[1], snm_model_find_link(m, "bob"));

	const snm_joint* hinge = joint_named(m, "hinge");
	assert_int_equal(hinge->type, SNM_JOINT_CONTINUOUS);
	assert_int_equal(hinge->parent, snm_model_find_link(m, "base"));
	assert_int_equal(hinge->child, snm_model_find_link(m, "bob"));
	assert_vec_equal(hinge->origin.p, 0, 0, 2);
	assert_true(is_identity_quat(hinge->origin.q));
	assert_vec_equal(hinge->axis, 0, 1, 0);
	assert_false(hinge->has_limit);
	assert_true(hinge->damping == 0.01);
	assert_true(hinge->friction == 0.0);
	assert_int_equal(hinge->mimic, -1);

	const snm_link* bob = link_named(m, "bob");
	assert_true(bob->has_inertial);
	assert_true(bob->mass == 1.0);
	assert_vec_equal(bob->inertial_frame.p, 0, 0, -1);
	assert_vec_equal(bob->inertia.cx, 4e-5, 0, 0);
	assert_int_equal(bob->parent_joint, 0);
	assert_int_equal(link_named(m, "base")->parent_joint, -1);

	// Visuals: grouped by link, named colours resolved, inline colours kept.
	assert_int_equal(m->visual_count, 3);
	const snm_link* base = link_named(m, "base");
	assert_int_equal(base->visual_count, 1);
	const snm_visual* box = &m->visuals[base->first_visual];
	assert_int_equal(box->type, SNM_GEOMETRY_BOX);
	assert_vec_equal(box->size, 0.2, 0.2, 0.1);
	assert_true(box->has_color);
	assert_true(box->rgba[0] == 0.6 && box->rgba[1] == 0.6 && box->rgba[2] == 0.65 && box->rgba[3] == 1.0);
	assert_int_equal(bob->visual_count, 2);
	const snm_visual* ball = &m->visuals[bob->first_visual];
	const snm_visual* rod = &m->visuals[bob->first_visual + 1];
	assert_string_equal(ball->name, "ball");
	assert_int_equal(ball->type, SNM_GEOMETRY_SPHERE);
	assert_true(ball->radius == 0.05);
	assert_vec_equal(ball->origin.p, 0, 0, -1);
	assert_string_equal(ball->material, "red");
	assert_true(ball->rgba[0] == 1.0 && ball->rgba[1] == 0.0 && ball->rgba[3] == 1.0);
	assert_int_equal(rod->type, SNM_GEOMETRY_CYLINDER);
	assert_true(rod->radius == 0.005 && rod->length == 1.0);
	assert_true(rod->has_color && rod->rgba[2] == 0.65);
	assert_int_equal(rod->link, snm_model_find_link(m, "bob"));
	assert_int_equal(m->material_count, 1);
	snm_model_destroy(m);
}

static void test_double_pendulum(void** state)
{
	(void)state;
	snm_model* m = load("double_pendulum.urdf");
	assert_int_equal(m->link_count, 3);
	assert_int_equal(m->joint_count, 2);
	const char* order[3] = { "base", "upper", "lower" };
	for (int i = 0; i < 3; ++i)
	{
		assert_string_equal(m->links[m->link_order[i]].name, order[i]);
	}
	const snm_joint* shoulder = joint_named(m, "shoulder");
	const snm_joint* elbow = joint_named(m, "elbow");
	assert_int_equal(shoulder->type, SNM_JOINT_REVOLUTE);
	assert_vec_equal(shoulder->origin.p, 0, 0.1, 1.5);
	assert_true(shoulder->has_limit);
	assert_true(shoulder->lower == -3.0 && shoulder->upper == 3.0);
	assert_true(shoulder->effort == 50.0 && shoulder->velocity == 10.0);
	assert_int_equal(elbow->parent, snm_model_find_link(m, "upper"));
	assert_vec_equal(elbow->origin.p, 0, 0, -0.5);
	assert_vec_equal(elbow->axis, 1, 0, 0);

	const snm_link* upper = link_named(m, "upper");
	assert_true(upper->mass == 1.5);
	assert_vec_equal(upper->inertial_frame.p, 0.01, 0, -0.25);
	// [ixx ixy ixz; ixy iyy iyz; ixz iyz izz] by columns.
	assert_vec_equal(upper->inertia.cx, 0.032, 0.001, -0.002);
	assert_vec_equal(upper->inertia.cy, 0.001, 0.031, 0.0005);
	assert_vec_equal(upper->inertia.cz, -0.002, 0.0005, 0.004);
	const snm_link* lower = link_named(m, "lower");
	assert_true(lower->mass == 0.8);
	assert_vec_equal(lower->inertia.cy, -0.0004, 0.0105, 0.0002);
	assert_int_equal(lower->visual_count, 0);
	// A visual without a material has the documented grey and no colour.
	const snm_visual* v = &m->visuals[upper->first_visual];
	assert_false(v->has_color);
	assert_true(v->rgba[0] == 0.7 && v->rgba[3] == 1.0);
	snm_model_destroy(m);
}

static void test_prismatic(void** state)
{
	(void)state;
	snm_model* m = load("prismatic.urdf");
	const snm_joint* slide = joint_named(m, "slide");
	assert_int_equal(slide->type, SNM_JOINT_PRISMATIC);
	assert_vec_equal(slide->origin.p, 0.1, 0.2, 0.3);
	assert_rotation_is(slide->origin.q, rpy_matrix(0.1, 0.2, 0.3), "rpy to quaternion, a few ulps");
	// The axis (2, 2, 0) is normalised.
	assert_vec_near(slide->axis, sn_v3(sqrt(0.5), sqrt(0.5), 0), rot_tol, "normalised axis, a few ulps");
	assert_true(slide->lower == -0.5 && slide->upper == 0.75 && slide->effort == 200.0 && slide->velocity == 1.5);
	assert_true(slide->damping == 3.0 && slide->friction == 0.5);

	const snm_link* carriage = link_named(m, "carriage");
	assert_true(carriage->mass == 2.5);
	assert_vec_equal(carriage->inertial_frame.p, 0, 0, 0.05);
	assert_rotation_is(carriage->inertial_frame.q, rpy_matrix(0, 0, 0.5), "inertial rpy, a few ulps");
	assert_vec_equal(carriage->inertia.cz, 0, 0, 0.03);
	const snm_visual* mesh = &m->visuals[carriage->first_visual];
	assert_int_equal(mesh->type, SNM_GEOMETRY_MESH);
	assert_string_equal(mesh->mesh, "package://slider/meshes/carriage.stl");
	assert_vec_equal(mesh->scale, 0.001, 0.001, 0.001);
	snm_model_destroy(m);
}

static void test_floating_base(void** state)
{
	(void)state;
	snm_model* m = load("floating.urdf");
	assert_int_equal(m->link_count, 4);
	assert_string_equal(m->links[m->root].name, "world");
	const snm_link* world = link_named(m, "world");
	assert_false(world->has_inertial);
	assert_true(world->mass == 0.0);
	const snm_joint* base = joint_named(m, "base_joint");
	assert_int_equal(base->type, SNM_JOINT_FLOATING);
	assert_int_equal(snm_joint_dof_count(base->type), 6);
	assert_vec_equal(base->origin.p, 0, 0, 1);
	assert_rotation_is(base->origin.q, rpy_matrix(0, 0, 0.5 * SN_PI), "yaw of a quarter turn, a few ulps");
	assert_int_equal(joint_named(m, "left_hip")->parent, snm_model_find_link(m, "torso"));
	assert_int_equal(joint_named(m, "right_hip")->parent, snm_model_find_link(m, "torso"));
	// Children in document order: left before right.
	assert_string_equal(m->links[m->link_order[2]].name, "left_leg");
	assert_string_equal(m->links[m->link_order[3]].name, "right_leg");
	snm_model_destroy(m);
}

static void test_branching_tree(void** state)
{
	(void)state;
	snm_model* m = load("tree.urdf");
	assert_int_equal(m->link_count, 8);
	assert_int_equal(m->joint_count, 7);
	const char* order[8] = { "world", "base", "left1", "left2", "left_tool", "right1", "right2", "right_tool" };
	for (int i = 0; i < 8; ++i)
	{
		assert_string_equal(m->links[m->link_order[i]].name, order[i]);
	}
	// Every link appears once, and each parent before its children.
	int position[8];
	for (int i = 0; i < 8; ++i)
	{
		position[m->link_order[i]] = i;
	}
	for (int j = 0; j < m->joint_count; ++j)
	{
		assert_true(position[m->joints[j].parent] < position[m->joints[j].child]);
	}
	const snm_joint* tool = joint_named(m, "right_tool_joint");
	assert_int_equal(tool->type, SNM_JOINT_FIXED);
	assert_rotation_is(tool->origin.q, rpy_matrix(SN_PI, 0, 0), "roll of a half turn, a few ulps");
	assert_vec_equal(joint_named(m, "right_shoulder")->axis, 0, 0, -1);
	assert_vec_equal(joint_named(m, "right_elbow")->axis, -1, 0, 0);
	assert_false(link_named(m, "left_tool")->has_inertial);
	snm_model_destroy(m);
}

static void test_gripper_mimic(void** state)
{
	(void)state;
	snm_model* m = load("gripper.urdf");
	const snm_joint* left = joint_named(m, "finger_left_joint");
	const snm_joint* right = joint_named(m, "finger_right_joint");
	const snm_joint* thumb = joint_named(m, "thumb_joint");
	assert_false(left->has_mimic);
	assert_int_equal(left->mimic, -1);
	assert_true(right->has_mimic);
	assert_int_equal(right->mimic, snm_model_find_joint(m, "finger_left_joint"));
	assert_true(right->multiplier == -1.0 && right->offset == 0.01);
	assert_int_equal(thumb->mimic, snm_model_find_joint(m, "wrist"));
	assert_true(thumb->multiplier == -0.5 && thumb->offset == 0.1);
	assert_int_equal(right->type, SNM_JOINT_PRISMATIC);
	assert_true(right->lower == -0.05 && right->upper == 0.01);
	assert_int_equal(link_named(m, "palm")->visual_count, 1);
	assert_string_equal(m->visuals[0].material, "dark");
	assert_true(m->visuals[0].has_color && m->visuals[0].rgba[0] == 0.2);
	snm_model_destroy(m);
}

// URDF q_this = m q_ref + o against the core's q_A + G q_B + gamma = 0, A = this joint.
static void test_mimic_sign(void** state)
{
	(void)state;
	double gearing, gamma;
	snm_urdf_mimic_to_core(-0.5, 0.1, &gearing, &gamma);
	assert_true(gearing == 0.5);
	assert_true(gamma == -0.1);
	// Any pair that satisfies the URDF relation satisfies the core's row exactly (binary-exact numbers).
	double q_ref = 0.75, q_this = -0.5 * q_ref + 0.125;
	snm_urdf_mimic_to_core(-0.5, 0.125, &gearing, &gamma);
	assert_true(q_this + gearing * q_ref + gamma == 0.0);
}

static void test_axis_rotation(void** state)
{
	(void)state;
	assert_true(is_identity_quat(snm_axis_rotation(sn_v3(1, 0, 0))));
	assert_true(is_identity_quat(snm_axis_rotation(sn_v3(3, 0, 0))));
	sn_vec3 axes[] = { { 0, 1, 0 }, { 0, 0, 1 },     { -1, 0, 0 },       { 0, 0, -1 },
					   { 1, 2, 3 }, { -1, 1e-9, 0 }, { -0.3, -0.4, 0.5 } };
	for (size_t i = 0; i < sizeof(axes) / sizeof(axes[0]); ++i)
	{
		sn_quat q = snm_axis_rotation(axes[i]);
		assert_near(sn_quat_length(q), 1.0, rot_tol, "unit quaternion, a few ulps");
		assert_vec_near(sn_rotate(q, sn_v3(1, 0, 0)), sn_normalize(axes[i]), 1e-14,
						"x turned onto the axis; 1e-14 covers the near -x case");
	}
}

static void test_rpy(void** state)
{
	(void)state;
	double cases[][3] = {
		{ 0, 0, 0 }, { 0.3, 0, 0 }, { 0, -1.2, 0 }, { 0, 0, 2.5 }, { 0.1, 0.2, 0.3 }, { -2, 1.5, 3 }
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
	{
		sn_quat q = snm_quat_from_rpy(cases[i][0], cases[i][1], cases[i][2]);
		assert_rotation_is(q, rpy_matrix(cases[i][0], cases[i][1], cases[i][2]), "rpy, a few ulps");
	}
	assert_true(is_identity_quat(snm_quat_from_rpy(0, 0, 0)));
}

// Text from memory, not NUL-terminated, and the size and count limits.
static void test_limits(void** state)
{
	(void)state;
	const char text[] = "<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/><link name=\"c\"/>"
						"<joint name=\"j1\" type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/></joint>"
						"<joint name=\"j2\" type=\"fixed\"><parent link=\"a\"/><child link=\"c\"/></joint></robot>XXXX";
	size_t size = sizeof(text) - 1 - 4; // without the trailing XXXX and the NUL
	snm_model* m = NULL;
	snm_error error;
	assert_sn_ok(snm_parse_urdf(text, size, "memory.urdf", NULL, &m, &error));
	assert_int_equal(m->link_count, 3);
	snm_model_destroy(m);

	snm_limits limits = snm_default_limits();
	limits.max_links = 2;
	assert_sn_error(snm_parse_urdf(text, size, "memory.urdf", &limits, &m, &error), SN_ERR_CAPACITY);
	assert_null(m);
	assert_non_null(strstr(error.message, "more than 2 links"));
	assert_int_equal(error.line, 1);

	limits = snm_default_limits();
	limits.max_bytes = 100;
	assert_sn_error(snm_parse_urdf(text, size, "memory.urdf", &limits, &m, &error), SN_ERR_CAPACITY);
	assert_non_null(strstr(error.text, "memory.urdf"));

	limits = snm_default_limits();
	limits.max_depth = 0;
	assert_sn_error(snm_parse_urdf(text, size, "memory.urdf", &limits, &m, &error), SN_ERR_INVALID_ARGUMENT);

	limits = snm_default_limits();
	limits.max_bytes = 100;
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", SINEW_TEST_URDF_DIR, "tree.urdf");
	assert_sn_error(snm_load_urdf_file(path, &limits, &m, &error), SN_ERR_CAPACITY);
	assert_non_null(strstr(error.message, "larger than the limit"));
	assert_sn_error(snm_load_urdf_file(SINEW_TEST_URDF_DIR "/no-such-file.urdf", NULL, &m, &error),
					SN_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(error.message, "cannot open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pendulum),
		cmocka_unit_test(test_double_pendulum),
		cmocka_unit_test(test_prismatic),
		cmocka_unit_test(test_floating_base),
		cmocka_unit_test(test_branching_tree),
		cmocka_unit_test(test_gripper_mimic),
		cmocka_unit_test(test_mimic_sign),
		cmocka_unit_test(test_axis_rotation),
		cmocka_unit_test(test_rpy),
		cmocka_unit_test(test_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
