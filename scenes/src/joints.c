// Maximal-coordinate joint scenes (joints.h). The arithmetic of every builder is the one the tests and
// benchmarks used before they shared it, so their figures did not move.
#include "scenes/joints.h"

#include <math.h>

#define TRY_(call)                                                                                                     \
	do                                                                                                                 \
	{                                                                                                                  \
		sn_error try_err_ = (call);                                                                                    \
		if (try_err_ != SN_ERR_OK)                                                                                     \
		{                                                                                                              \
			return try_err_;                                                                                           \
		}                                                                                                              \
	} while (0)

static sn_error add_body(sn_world* world, sn_vec3 at, double mass, sn_mat33 inertia, sn_body_id* id)
{
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = at;
	bd.mass = mass;
	bd.inertia = inertia;
	return sn_create_body(world, &bd, id);
}

static const sn_body_id no_body = { 0, 0 };

// ---- pendulums and chains ---------------------------------------------------------------------------

sn_error scene_pendulum(sn_world* world, sn_body_id* bob, sn_joint_id* hinge)
{
	TRY_(add_body(world, sn_v3(1, 0, 0), 1.0, sn_inertia_sphere(1.0, 0.01), bob));
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	sn_quat x_to_y = scene_x_to_y();
	hd.base.body_b = *bob;
	hd.base.frame_a.q = x_to_y;
	hd.base.frame_b.q = x_to_y;
	hd.base.frame_b.p = sn_v3(-1, 0, 0);
	return sn_create_hinge_joint(world, &hd, hinge);
}

double scene_complete_elliptic_k(double k)
{
	double a = 1.0, b = sqrt(1.0 - k * k);
	for (int i = 0; i < 30; ++i)
	{
		double an = 0.5 * (a + b);
		b = sqrt(a * b);
		a = an;
	}
	return SN_PI / (2.0 * a);
}

double scene_pendulum_exact_period(void)
{
	return 4.0 * sqrt(1.0 / SCENE_GRAVITY) * scene_complete_elliptic_k(sin(0.25 * SN_PI));
}

sn_error scene_hinge_chain(sn_world* world, int n, sn_body_id* bodies, sn_joint_id* joints)
{
	const double half = 0.25;
	sn_quat x_to_y = scene_x_to_y();
	for (int i = 0; i < n; ++i)
	{
		sn_body_def bd = sn_default_body_def();
		bd.pose.p = sn_v3(half + 2.0 * half * i, 0.0, 0.0);
		bd.mass = 1.0;
		bd.inertia = sn_inertia_box(1.0, sn_v3(half, 0.05, 0.05));
		TRY_(sn_create_body(world, &bd, bodies + i));
		sn_hinge_joint_def hd = sn_default_hinge_joint_def();
		if (i > 0)
		{
			hd.base.body_a = bodies[i - 1];
			hd.base.frame_a.p = sn_v3(half, 0, 0);
		}
		hd.base.body_b = bodies[i];
		hd.base.frame_b.p = sn_v3(-half, 0, 0);
		hd.base.frame_a.q = x_to_y;
		hd.base.frame_b.q = x_to_y;
		TRY_(sn_create_hinge_joint(world, &hd, joints + i));
	}
	return SN_ERR_OK;
}

int scene_sheet_joint_count(int rows, int cols)
{
	return rows * (2 * cols - 1);
}

sn_error scene_sheet(sn_world* world, int rows, int cols, sn_body_id* bodies, sn_joint_id* joints)
{
	const double s = 0.25;
	sn_quat x_to_y = scene_x_to_y();
	int joint_count = 0;
	for (int i = 0; i < rows; ++i)
	{
		for (int k = 0; k < cols; ++k)
		{
			sn_body_def bd = sn_default_body_def();
			bd.pose.p = sn_v3(s * (i + 0.5), s * k, 0.0);
			bd.inertia = sn_inertia_box(1.0, sn_v3(0.5 * s, 0.5 * s, 0.02));
			sn_body_id* b = bodies + i * cols + k;
			TRY_(sn_create_body(world, &bd, b));
			sn_hinge_joint_def hd = sn_default_hinge_joint_def();
			hd.base.frame_a.q = x_to_y;
			hd.base.frame_b.q = x_to_y;
			hd.base.body_b = *b;
			hd.base.frame_b.p = sn_v3(-0.5 * s, 0, 0);
			if (i > 0)
			{
				hd.base.body_a = bodies[(i - 1) * cols + k];
				hd.base.frame_a.p = sn_v3(0.5 * s, 0, 0);
			}
			else
			{
				hd.base.frame_a.p = sn_v3(0, s * k, 0);
			}
			TRY_(sn_create_hinge_joint(world, &hd, joints + joint_count++));
			if (k > 0)
			{
				hd.base.body_a = bodies[i * cols + k - 1];
				hd.base.frame_a.p = sn_v3(0, 0.5 * s, 0);
				hd.base.frame_b.p = sn_v3(0, -0.5 * s, 0);
				TRY_(sn_create_hinge_joint(world, &hd, joints + joint_count++));
			}
		}
	}
	return SN_ERR_OK;
}

sn_error scene_joint(sn_world* world, sn_joint_type type, sn_body_id a, sn_body_id b, sn_vec3 pa, sn_vec3 pb,
					 sn_joint_id* joint)
{
	sn_joint_base base = sn_default_joint_base();
	base.body_a = a;
	base.body_b = b;
	base.frame_a.p = pa;
	base.frame_b.p = pb;
	sn_limit slide = { true, -0.05, 0.05, sn_soft_rigid() };
	switch (type)
	{
		case SN_JOINT_FIXED:
		{
			sn_fixed_joint_def d = sn_default_fixed_joint_def();
			d.base = base;
			return sn_create_fixed_joint(world, &d, joint);
		}
		case SN_JOINT_HINGE:
		{
			sn_hinge_joint_def d = sn_default_hinge_joint_def();
			sn_quat x_to_y = scene_x_to_y();
			d.base = base;
			d.base.frame_a.q = x_to_y;
			d.base.frame_b.q = x_to_y;
			return sn_create_hinge_joint(world, &d, joint);
		}
		case SN_JOINT_PRISMATIC:
		{
			sn_prismatic_joint_def d = sn_default_prismatic_joint_def();
			d.base = base;
			d.limit = slide;
			return sn_create_prismatic_joint(world, &d, joint);
		}
		case SN_JOINT_CYLINDRICAL:
		{
			sn_cylindrical_joint_def d = sn_default_cylindrical_joint_def();
			d.base = base;
			d.linear_limit = slide;
			return sn_create_cylindrical_joint(world, &d, joint);
		}
		case SN_JOINT_SPHERICAL:
		{
			sn_spherical_joint_def d = sn_default_spherical_joint_def();
			d.base = base;
			return sn_create_spherical_joint(world, &d, joint);
		}
		case SN_JOINT_DISTANCE:
		{
			sn_distance_joint_def d = sn_default_distance_joint_def();
			d.base = base;
			d.length = 0.05;
			return sn_create_distance_joint(world, &d, joint);
		}
		case SN_JOINT_SIX_AXIS:
		{
			sn_six_axis_joint_def d = sn_default_six_axis_joint_def();
			d.base = base;
			d.axes[SN_AXIS_RY].mode = SN_AXIS_LIMITED;
			d.axes[SN_AXIS_RY].lower = -1.0;
			d.axes[SN_AXIS_RY].upper = 1.0;
			d.axes[SN_AXIS_RZ].mode = SN_AXIS_FREE;
			return sn_create_six_axis_joint(world, &d, joint);
		}
		case SN_JOINT_TYPE_COUNT:
			break;
	}
	return SN_ERR_INVALID_ARGUMENT;
}

double scene_joint_chain_gap(sn_joint_type type)
{
	return type == SN_JOINT_DISTANCE ? 0.05 : 0.0;
}

sn_error scene_joint_chain(sn_world* world, sn_joint_type type, int links, sn_body_id* bodies, sn_joint_id* joints)
{
	const double half = 0.25;
	double gap = scene_joint_chain_gap(type);
	for (int i = 0; i < links; ++i)
	{
		double mass = i + 1 == links ? 5.0 : 1.0;
		double x = gap + half + (2.0 * half + gap) * i;
		TRY_(add_body(world, sn_v3(x, 0, 0), mass, sn_inertia_box(mass, sn_v3(half, 0.05, 0.05)), bodies + i));
		sn_vec3 pa = i == 0 ? sn_v3(0, 0, 0) : sn_v3(half, 0, 0);
		TRY_(scene_joint(world, type, i == 0 ? no_body : bodies[i - 1], bodies[i], pa, sn_v3(-half, 0, 0), joints + i));
	}
	return SN_ERR_OK;
}

// ---- limits ----------------------------------------------------------------------------------------------

sn_error scene_hinge_limit(sn_world* world, sn_body_id* bob, sn_joint_id* hinge)
{
	TRY_(add_body(world, sn_v3(1, 0, 0), 1.0, sn_inertia_sphere(1.0, 0.05), bob));
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	sn_quat x_to_y = scene_x_to_y();
	hd.base.body_b = *bob;
	hd.base.frame_a.q = x_to_y;
	hd.base.frame_b.q = x_to_y;
	hd.base.frame_b.p = sn_v3(-1, 0, 0);
	hd.limit.enabled = true;
	hd.limit.lower = -0.5;
	hd.limit.upper = 0.5;
	return sn_create_hinge_joint(world, &hd, hinge);
}

sn_error scene_prismatic_limit(sn_world* world, sn_body_id* body, sn_joint_id* slider)
{
	TRY_(add_body(world, sn_v3(0, 0, 0), 3.0, sn_inertia_sphere(3.0, 0.1), body));
	sn_prismatic_joint_def pd = sn_default_prismatic_joint_def();
	sn_quat x_to_z = scene_x_to_z();
	pd.base.body_b = *body;
	pd.base.frame_a.q = x_to_z;
	pd.base.frame_b.q = x_to_z;
	pd.limit.enabled = true;
	pd.limit.lower = -0.2;
	pd.limit.upper = 1.0;
	return sn_create_prismatic_joint(world, &pd, slider);
}

sn_error scene_cone_limit(sn_world* world, double y_angle, double z_angle, sn_body_id* bob, sn_joint_id* ball)
{
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = sn_v3(1, 0, 0);
	bd.inertia = sn_inertia_sphere(1.0, 0.05);
	bd.linear_velocity = sn_v3(0, 1.5, 0);
	TRY_(sn_create_body(world, &bd, bob));
	sn_spherical_joint_def sd = sn_default_spherical_joint_def();
	sd.base.body_b = *bob;
	sd.base.frame_b.p = sn_v3(-1, 0, 0);
	sd.swing.enabled = true;
	sd.swing.y_angle = y_angle;
	sd.swing.z_angle = z_angle;
	return sn_create_spherical_joint(world, &sd, ball);
}

sn_error scene_twist_limit(sn_world* world, sn_body_id* bob, sn_joint_id* ball)
{
	TRY_(add_body(world, sn_v3(1, 0, 0), 1.0, sn_inertia_sphere(1.0, 0.1), bob));
	sn_spherical_joint_def sd = sn_default_spherical_joint_def();
	sd.base.body_b = *bob;
	sd.base.frame_b.p = sn_v3(-1, 0, 0);
	sd.twist.enabled = true;
	sd.twist.lower = -0.2;
	sd.twist.upper = 0.2;
	return sn_create_spherical_joint(world, &sd, ball);
}

sn_error scene_distance_limit(sn_world* world, sn_body_id* body, sn_joint_id* rod)
{
	TRY_(add_body(world, sn_v3(0, 0, -1), 1.0, sn_inertia_sphere(1.0, 0.05), body));
	sn_distance_joint_def dd = sn_default_distance_joint_def();
	dd.base.body_b = *body;
	dd.length = 1.0;
	dd.spring_enabled = true;
	dd.spring = sn_soft_stiffness(20.0, 1.0);
	dd.limit.enabled = true;
	dd.limit.lower = 0.0;
	dd.limit.upper = 1.2;
	return sn_create_distance_joint(world, &dd, rod);
}

// ---- motors, loads, breaking -------------------------------------------------------------------------

sn_error scene_motor_wheel(sn_world* world, double speed, double max_torque, sn_body_id* wheel, sn_joint_id* hinge)
{
	TRY_(add_body(world, sn_v3(0, 0, 0), 2.0, sn_mat33_diag(0.1, 0.1, 0.1), wheel));
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	sn_quat x_to_y = scene_x_to_y();
	hd.base.body_b = *wheel;
	hd.base.frame_a.q = x_to_y;
	hd.base.frame_b.q = x_to_y;
	hd.motor.enabled = true;
	hd.motor.speed = speed;
	hd.motor.max_force = max_torque;
	return sn_create_hinge_joint(world, &hd, hinge);
}

sn_error scene_six_axis_motor_wheel(sn_world* world, double speed, double max_torque, sn_body_id* wheel,
									sn_joint_id* joint)
{
	sn_body_def bd = sn_default_body_def();
	bd.inertia = sn_mat33_diag(0.1, 0.1, 0.1);
	TRY_(sn_create_body(world, &bd, wheel));
	sn_six_axis_joint_def sd = sn_default_six_axis_joint_def();
	sd.base.body_b = *wheel;
	sd.axes[SN_AXIS_RX].mode = SN_AXIS_FREE;
	sd.axes[SN_AXIS_RX].motor.enabled = true;
	sd.axes[SN_AXIS_RX].motor.speed = speed;
	sd.axes[SN_AXIS_RX].motor.max_force = max_torque;
	return sn_create_six_axis_joint(world, &sd, joint);
}

sn_error scene_hanging_body(sn_world* world, sn_joint_type type, sn_body_id* body, sn_joint_id* joint)
{
	TRY_(add_body(world, sn_v3(0, 0, -0.3), 2.0, sn_inertia_sphere(2.0, 0.1), body));
	if (type == SN_JOINT_DISTANCE)
	{
		sn_distance_joint_def d = sn_default_distance_joint_def();
		d.base.body_b = *body;
		d.length = 0.3;
		return sn_create_distance_joint(world, &d, joint);
	}
	return scene_joint(world, type, no_body, *body, sn_v3(0, 0, 0), sn_v3(0, 0, 0.3), joint);
}

sn_error scene_cantilever(sn_world* world, sn_body_id* bar, sn_joint_id* weld)
{
	TRY_(add_body(world, sn_v3(0.5, 0, 0), 1.0, sn_inertia_box(1.0, sn_v3(0.5, 0.05, 0.05)), bar));
	sn_fixed_joint_def fd = sn_default_fixed_joint_def();
	fd.base.body_b = *bar;
	fd.base.frame_b.p = sn_v3(-0.5, 0, 0);
	return sn_create_fixed_joint(world, &fd, weld);
}

sn_error scene_hook(sn_world* world, double break_force, sn_body_id* body, sn_joint_id* weld)
{
	TRY_(add_body(world, sn_v3(0, 0, -0.3), 2.0, sn_inertia_sphere(2.0, 0.1), body));
	sn_fixed_joint_def fd = sn_default_fixed_joint_def();
	fd.base.body_b = *body;
	fd.base.frame_b.p = sn_v3(0, 0, 0.3);
	fd.base.break_force = break_force;
	return sn_create_fixed_joint(world, &fd, weld);
}
