#include "joint_scenes.h"

#include "support.h"

static const double g = 9.81;

sn_world* scene_world(sn_solver solver, double dt)
{
	sn_world_def wd = sn_default_world_def();
	wd.solver = solver;
	wd.time_step = dt;
	wd.gravity = sn_v3(0, 0, -g);
	sn_world* world = NULL;
	assert_sn_ok(sn_world_create(&wd, &world));
	return world;
}

static sn_body_id add_body(sn_world* world, sn_vec3 at, double mass, sn_mat33 inertia)
{
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = at;
	bd.mass = mass;
	bd.inertia = inertia;
	sn_body_id id;
	assert_sn_ok(sn_create_body(world, &bd, &id));
	return id;
}

static void step_ok(sn_world* world)
{
	sn_error err = sn_world_step(world);
	if (err != SN_ERR_OK)
	{
		fail_msg("step failed: %s (%s)", sn_error_name(err), sn_world_last_error_detail(world));
	}
}

// ---- pendulum ----------------------------------------------------------------------------------------

static double complete_elliptic_k(double k)
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
	return 4.0 * sqrt(1.0 / g) * complete_elliptic_k(sin(0.25 * SN_PI));
}

pendulum_run scene_pendulum(sn_solver solver, double dt, double seconds)
{
	sn_world* world = scene_world(solver, dt);
	sn_body_id bob = add_body(world, sn_v3(1, 0, 0), 1.0, sn_inertia_sphere(1.0, 0.01));
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
	hd.base.body_b = bob;
	hd.base.frame_a.q = x_to_y;
	hd.base.frame_b.q = x_to_y;
	hd.base.frame_b.p = sn_v3(-1, 0, 0);
	sn_joint_id hinge;
	assert_sn_ok(sn_create_hinge_joint(world, &hd, &hinge));

	pendulum_run out = { 0.0, 0.0, 0.0, 0.0, 0.0 };
	double previous_x = 1.0, first_crossing = -1.0;
	int steps = (int)(seconds / dt + 0.5);
	for (int i = 0; i < steps; ++i)
	{
		step_ok(world);
		sn_vec3 p = sn_body_get_center_of_mass(world, bob);
		double energy = sn_body_get_kinetic_energy(world, bob) + g * p.z;
		out.energy_min = fmin(out.energy_min, energy);
		out.energy_max = fmax(out.energy_max, energy);
		sn_vec3 pivot = sn_transform_point(sn_body_get_pose(world, bob), sn_v3(-1, 0, 0));
		out.max_arm_error = fmax(out.max_arm_error, sn_length(pivot));
		if (previous_x > 0.0 && p.x <= 0.0)
		{
			double t = sn_world_get_time(world) - dt * p.x / (p.x - previous_x);
			if (first_crossing < 0.0)
			{
				first_crossing = t;
			}
			else if (out.first_period == 0.0)
			{
				out.first_period = t - first_crossing;
			}
		}
		previous_x = p.x;
		if (i + 1 == (int)(1.0 / dt + 0.5))
		{
			out.angle_at_1s = atan2(-p.z, p.x);
		}
	}
	sn_world_destroy(world);
	return out;
}

// ---- chains ------------------------------------------------------------------------------------------

// Locked axes per type: bit per sn_axis.
static unsigned locked_axes(sn_joint_type type)
{
	const unsigned lin = (1u << SN_AXIS_X) | (1u << SN_AXIS_Y) | (1u << SN_AXIS_Z);
	const unsigned swing = (1u << SN_AXIS_RY) | (1u << SN_AXIS_RZ);
	switch (type)
	{
		case SN_JOINT_FIXED:
			return lin | swing | (1u << SN_AXIS_RX);
		case SN_JOINT_HINGE:
			return lin | swing;
		case SN_JOINT_PRISMATIC:
			return (1u << SN_AXIS_Y) | (1u << SN_AXIS_Z) | swing | (1u << SN_AXIS_RX);
		case SN_JOINT_CYLINDRICAL:
			return (1u << SN_AXIS_Y) | (1u << SN_AXIS_Z) | swing;
		case SN_JOINT_SPHERICAL:
			return lin;
		case SN_JOINT_SIX_AXIS:
			return lin | (1u << SN_AXIS_RX);
		default:
			return 0;
	}
}

static sn_joint_id chain_joint(sn_world* world, sn_joint_type type, sn_body_id a, sn_body_id b, sn_vec3 pa, sn_vec3 pb)
{
	sn_joint_base base = sn_default_joint_base();
	base.body_a = a;
	base.body_b = b;
	base.frame_a.p = pa;
	base.frame_b.p = pb;
	sn_joint_id id = { 0, 0 };
	sn_limit slide = { true, -0.05, 0.05, sn_soft_rigid() };
	switch (type)
	{
		case SN_JOINT_FIXED:
		{
			sn_fixed_joint_def d = sn_default_fixed_joint_def();
			d.base = base;
			assert_sn_ok(sn_create_fixed_joint(world, &d, &id));
			break;
		}
		case SN_JOINT_HINGE:
		{
			sn_hinge_joint_def d = sn_default_hinge_joint_def();
			sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
			d.base = base;
			d.base.frame_a.q = x_to_y;
			d.base.frame_b.q = x_to_y;
			assert_sn_ok(sn_create_hinge_joint(world, &d, &id));
			break;
		}
		case SN_JOINT_PRISMATIC:
		{
			sn_prismatic_joint_def d = sn_default_prismatic_joint_def();
			d.base = base;
			d.limit = slide;
			assert_sn_ok(sn_create_prismatic_joint(world, &d, &id));
			break;
		}
		case SN_JOINT_CYLINDRICAL:
		{
			sn_cylindrical_joint_def d = sn_default_cylindrical_joint_def();
			d.base = base;
			d.linear_limit = slide;
			assert_sn_ok(sn_create_cylindrical_joint(world, &d, &id));
			break;
		}
		case SN_JOINT_SPHERICAL:
		{
			sn_spherical_joint_def d = sn_default_spherical_joint_def();
			d.base = base;
			assert_sn_ok(sn_create_spherical_joint(world, &d, &id));
			break;
		}
		case SN_JOINT_DISTANCE:
		{
			sn_distance_joint_def d = sn_default_distance_joint_def();
			d.base = base;
			d.length = 0.05;
			assert_sn_ok(sn_create_distance_joint(world, &d, &id));
			break;
		}
		case SN_JOINT_SIX_AXIS:
		{
			sn_six_axis_joint_def d = sn_default_six_axis_joint_def();
			d.base = base;
			d.axes[SN_AXIS_RY].mode = SN_AXIS_LIMITED;
			d.axes[SN_AXIS_RY].lower = -1.0;
			d.axes[SN_AXIS_RY].upper = 1.0;
			d.axes[SN_AXIS_RZ].mode = SN_AXIS_FREE;
			assert_sn_ok(sn_create_six_axis_joint(world, &d, &id));
			break;
		}
		default:
			fail_msg("no chain for joint type %d", (int)type);
	}
	return id;
}

chain_run scene_chain(sn_solver solver, sn_joint_type type, int links, double dt, double seconds)
{
	enum
	{
		MAX_LINKS = 32
	};
	assert_true(links <= MAX_LINKS);
	const double half = 0.25;
	double gap = type == SN_JOINT_DISTANCE ? 0.05 : 0.0;
	sn_world* world = scene_world(solver, dt);
	sn_body_id bodies[MAX_LINKS];
	sn_joint_id joints[MAX_LINKS];
	sn_body_id none = { 0, 0 };
	for (int i = 0; i < links; ++i)
	{
		double mass = i + 1 == links ? 5.0 : 1.0;
		double x = gap + half + (2.0 * half + gap) * i;
		bodies[i] = add_body(world, sn_v3(x, 0, 0), mass, sn_inertia_box(mass, sn_v3(half, 0.05, 0.05)));
		sn_vec3 pa = i == 0 ? sn_v3(0, 0, 0) : sn_v3(half, 0, 0);
		joints[i] = chain_joint(world, type, i == 0 ? none : bodies[i - 1], bodies[i], pa, sn_v3(-half, 0, 0));
	}
	chain_run out = { 0.0, 0.0, 0.0, false };
	unsigned locked = locked_axes(type);
	int steps = (int)(seconds / dt + 0.5);
	for (int s = 0; s < steps && !out.diverged; ++s)
	{
		if (sn_world_step(world) != SN_ERR_OK)
		{
			out.diverged = true;
			break;
		}
		for (int i = 0; i < links; ++i)
		{
			if (type == SN_JOINT_DISTANCE)
			{
				double len = sn_joint_get_coordinate(world, joints[i], SN_AXIS_X);
				out.max_linear_error = fmax(out.max_linear_error, fabs(len - gap));
				continue;
			}
			for (int a = 0; a < SN_AXIS_COUNT; ++a)
			{
				if (locked & (1u << a))
				{
					double e = fabs(sn_joint_get_coordinate(world, joints[i], (sn_axis)a));
					if (a < SN_AXIS_RX)
					{
						out.max_linear_error = fmax(out.max_linear_error, e);
					}
					else
					{
						out.max_angular_error = fmax(out.max_angular_error, e);
					}
				}
			}
		}
	}
	out.tip_z = sn_body_get_center_of_mass(world, bodies[links - 1]).z;
	sn_world_destroy(world);
	return out;
}

// ---- limits ------------------------------------------------------------------------------------------

double scene_hinge_limit_excess(sn_solver solver, double dt, double seconds)
{
	sn_world* world = scene_world(solver, dt);
	sn_body_id bob = add_body(world, sn_v3(1, 0, 0), 1.0, sn_inertia_sphere(1.0, 0.05));
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
	hd.base.body_b = bob;
	hd.base.frame_a.q = x_to_y;
	hd.base.frame_b.q = x_to_y;
	hd.base.frame_b.p = sn_v3(-1, 0, 0);
	hd.limit.enabled = true;
	hd.limit.lower = -0.5;
	hd.limit.upper = 0.5;
	sn_joint_id j;
	assert_sn_ok(sn_create_hinge_joint(world, &hd, &j));
	double excess = -INFINITY;
	int steps = (int)(seconds / dt + 0.5);
	for (int i = 0; i < steps; ++i)
	{
		step_ok(world);
		double theta = sn_joint_get_coordinate(world, j, SN_AXIS_RX);
		excess = fmax(excess, fmax(theta - 0.5, -0.5 - theta));
	}
	sn_world_destroy(world);
	return excess;
}

double scene_prismatic_limit_excess(sn_solver solver, double dt, double seconds)
{
	sn_world* world = scene_world(solver, dt);
	sn_body_id body = add_body(world, sn_v3(0, 0, 0), 3.0, sn_inertia_sphere(3.0, 0.1));
	sn_prismatic_joint_def pd = sn_default_prismatic_joint_def();
	sn_quat x_to_z = sn_quat_from_axis_angle(sn_v3(0, 1, 0), -0.5 * SN_PI);
	pd.base.body_b = body;
	pd.base.frame_a.q = x_to_z;
	pd.base.frame_b.q = x_to_z;
	pd.limit.enabled = true;
	pd.limit.lower = -0.2;
	pd.limit.upper = 1.0;
	sn_joint_id j;
	assert_sn_ok(sn_create_prismatic_joint(world, &pd, &j));
	double excess = -INFINITY;
	int steps = (int)(seconds / dt + 0.5);
	for (int i = 0; i < steps; ++i)
	{
		step_ok(world);
		double x = sn_joint_get_coordinate(world, j, SN_AXIS_X);
		excess = fmax(excess, fmax(-0.2 - x, x - 1.0));
	}
	sn_world_destroy(world);
	return excess;
}

double scene_cone_limit_excess(sn_solver solver, double y_angle, double z_angle, double dt, double seconds)
{
	sn_world* world = scene_world(solver, dt);
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = sn_v3(1, 0, 0);
	bd.inertia = sn_inertia_sphere(1.0, 0.05);
	bd.linear_velocity = sn_v3(0, 1.5, 0);
	sn_body_id bob;
	assert_sn_ok(sn_create_body(world, &bd, &bob));
	sn_spherical_joint_def sd = sn_default_spherical_joint_def();
	sd.base.body_b = bob;
	sd.base.frame_b.p = sn_v3(-1, 0, 0);
	sd.swing.enabled = true;
	sd.swing.y_angle = y_angle;
	sd.swing.z_angle = z_angle;
	sn_joint_id j;
	assert_sn_ok(sn_create_spherical_joint(world, &sd, &j));
	double excess = -INFINITY;
	int steps = (int)(seconds / dt + 0.5);
	for (int i = 0; i < steps; ++i)
	{
		step_ok(world);
		double sy = sn_joint_get_coordinate(world, j, SN_AXIS_RY), sz = sn_joint_get_coordinate(world, j, SN_AXIS_RZ);
		double norm = sqrt((sy / y_angle) * (sy / y_angle) + (sz / z_angle) * (sz / z_angle));
		excess = fmax(excess, norm - 1.0);
	}
	sn_world_destroy(world);
	return excess;
}

double scene_twist_limit_excess(sn_solver solver, double dt, double seconds)
{
	sn_world* world = scene_world(solver, dt);
	assert_sn_ok(sn_world_set_gravity(world, sn_v3(0, 0, 0)));
	sn_body_id bob = add_body(world, sn_v3(1, 0, 0), 1.0, sn_inertia_sphere(1.0, 0.1));
	sn_spherical_joint_def sd = sn_default_spherical_joint_def();
	sd.base.body_b = bob;
	sd.base.frame_b.p = sn_v3(-1, 0, 0);
	sd.twist.enabled = true;
	sd.twist.lower = -0.2;
	sd.twist.upper = 0.2;
	sn_joint_id j;
	assert_sn_ok(sn_create_spherical_joint(world, &sd, &j));
	double excess = -INFINITY;
	int steps = (int)(seconds / dt + 0.5);
	for (int i = 0; i < steps; ++i)
	{
		assert_sn_ok(sn_body_apply_torque(world, bob, sn_v3(2.0, 0, 0)));
		step_ok(world);
		double theta = sn_joint_get_coordinate(world, j, SN_AXIS_RX);
		excess = fmax(excess, fmax(theta - 0.2, -0.2 - theta));
	}
	sn_world_destroy(world);
	return excess;
}

double scene_distance_limit_excess(sn_solver solver, double dt, double seconds)
{
	sn_world* world = scene_world(solver, dt);
	sn_body_id body = add_body(world, sn_v3(0, 0, -1), 1.0, sn_inertia_sphere(1.0, 0.05));
	sn_distance_joint_def dd = sn_default_distance_joint_def();
	dd.base.body_b = body;
	dd.length = 1.0;
	dd.spring_enabled = true;
	dd.spring = sn_soft_stiffness(20.0, 1.0); // static stretch m g / k = 0.49 m: the limit must stop it
	dd.limit.enabled = true;
	dd.limit.lower = 0.0;
	dd.limit.upper = 1.2;
	sn_joint_id j;
	assert_sn_ok(sn_create_distance_joint(world, &dd, &j));
	double excess = -INFINITY;
	int steps = (int)(seconds / dt + 0.5);
	for (int i = 0; i < steps; ++i)
	{
		step_ok(world);
		excess = fmax(excess, sn_joint_get_coordinate(world, j, SN_AXIS_X) - 1.2);
	}
	sn_world_destroy(world);
	return excess;
}

// ---- motors, reactions, breaking ---------------------------------------------------------------------

motor_run scene_hinge_motor(sn_solver solver, double speed, double max_torque, double dt, double seconds)
{
	sn_world* world = scene_world(solver, dt);
	assert_sn_ok(sn_world_set_gravity(world, sn_v3(0, 0, 0)));
	sn_body_id wheel = add_body(world, sn_v3(0, 0, 0), 2.0, sn_mat33_diag(0.1, 0.1, 0.1));
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
	hd.base.body_b = wheel;
	hd.base.frame_a.q = x_to_y;
	hd.base.frame_b.q = x_to_y;
	hd.motor.enabled = true;
	hd.motor.speed = speed;
	hd.motor.max_force = max_torque;
	sn_joint_id j;
	assert_sn_ok(sn_create_hinge_joint(world, &hd, &j));
	motor_run out = { 0.0, 0.0 };
	int steps = (int)(seconds / dt + 0.5);
	for (int i = 0; i < steps; ++i)
	{
		step_ok(world);
		sn_vec3 torque;
		assert_sn_ok(sn_joint_get_reaction(world, j, NULL, &torque));
		out.max_torque = fmax(out.max_torque, fabs(torque.y));
	}
	out.speed = sn_body_get_angular_velocity(world, wheel).y;
	sn_world_destroy(world);
	return out;
}

sn_vec3 scene_hanging_reaction(sn_solver solver, sn_joint_type type, int steps)
{
	sn_world* world = scene_world(solver, 0.001);
	sn_body_id body = add_body(world, sn_v3(0, 0, -0.3), 2.0, sn_inertia_sphere(2.0, 0.1));
	sn_body_id none = { 0, 0 };
	sn_joint_id j;
	if (type == SN_JOINT_DISTANCE)
	{
		sn_distance_joint_def d = sn_default_distance_joint_def();
		d.base.body_b = body;
		d.length = 0.3;
		assert_sn_ok(sn_create_distance_joint(world, &d, &j));
	}
	else
	{
		j = chain_joint(world, type, none, body, sn_v3(0, 0, 0), sn_v3(0, 0, 0.3));
	}
	for (int i = 0; i < steps; ++i)
	{
		step_ok(world);
	}
	sn_vec3 force;
	assert_sn_ok(sn_joint_get_reaction(world, j, &force, NULL));
	sn_world_destroy(world);
	return force;
}

void scene_cantilever_reaction(sn_solver solver, int steps, sn_vec3* force, sn_vec3* torque)
{
	sn_world* world = scene_world(solver, 0.001);
	sn_body_id bar = add_body(world, sn_v3(0.5, 0, 0), 1.0, sn_inertia_box(1.0, sn_v3(0.5, 0.05, 0.05)));
	sn_fixed_joint_def fd = sn_default_fixed_joint_def();
	fd.base.body_b = bar;
	fd.base.frame_b.p = sn_v3(-0.5, 0, 0);
	sn_joint_id j;
	assert_sn_ok(sn_create_fixed_joint(world, &fd, &j));
	for (int i = 0; i < steps; ++i)
	{
		step_ok(world);
	}
	assert_sn_ok(sn_joint_get_reaction(world, j, force, torque));
	sn_world_destroy(world);
}

int scene_break_step(sn_solver solver, double break_force, int steps)
{
	sn_world* world = scene_world(solver, 0.001);
	sn_body_id body = add_body(world, sn_v3(0, 0, -0.3), 2.0, sn_inertia_sphere(2.0, 0.1));
	sn_fixed_joint_def fd = sn_default_fixed_joint_def();
	fd.base.body_b = body;
	fd.base.frame_b.p = sn_v3(0, 0, 0.3);
	fd.base.break_force = break_force;
	sn_joint_id j;
	assert_sn_ok(sn_create_fixed_joint(world, &fd, &j));
	int broke = -1;
	for (int i = 0; i < steps && broke < 0; ++i)
	{
		step_ok(world);
		int count = 0;
		const sn_joint_break_event* events = sn_world_get_break_events(world, &count);
		if (count > 0)
		{
			assert_int_equal(events[0].joint.index1, j.index1);
			assert_true(sn_joint_is_broken(world, j));
			broke = i;
		}
	}
	sn_world_destroy(world);
	return broke;
}

sheet_run scene_sheet(sn_solver solver, int side, double warm_start, int steps)
{
	const double s = 0.25;
	sn_world* world = scene_world(solver, 0.001);
	assert_sn_ok(sn_world_set_warm_start(world, warm_start));
	sn_body_id* bodies = test_calloc((size_t)(side * side), sizeof(sn_body_id));
	sn_joint_id* joints = test_calloc((size_t)(2 * side * side), sizeof(sn_joint_id));
	int joint_count = 0;
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
	for (int i = 0; i < side; ++i)
	{
		for (int k = 0; k < side; ++k)
		{
			sn_body_def bd = sn_default_body_def();
			bd.pose.p = sn_v3(s * (i + 0.5), s * k, 0.0);
			bd.inertia = sn_inertia_box(1.0, sn_v3(0.5 * s, 0.5 * s, 0.02));
			sn_body_id* b = bodies + i * side + k;
			assert_sn_ok(sn_create_body(world, &bd, b));
			sn_hinge_joint_def hd = sn_default_hinge_joint_def();
			hd.base.frame_a.q = x_to_y;
			hd.base.frame_b.q = x_to_y;
			hd.base.body_b = *b;
			hd.base.frame_b.p = sn_v3(-0.5 * s, 0, 0);
			if (i > 0)
			{
				hd.base.body_a = bodies[(i - 1) * side + k];
				hd.base.frame_a.p = sn_v3(0.5 * s, 0, 0);
			}
			else
			{
				hd.base.frame_a.p = sn_v3(0, s * k, 0);
			}
			assert_sn_ok(sn_create_hinge_joint(world, &hd, joints + joint_count++));
			if (k > 0)
			{
				hd.base.body_a = bodies[i * side + k - 1];
				hd.base.frame_a.p = sn_v3(0, 0.5 * s, 0);
				hd.base.frame_b.p = sn_v3(0, -0.5 * s, 0);
				assert_sn_ok(sn_create_hinge_joint(world, &hd, joints + joint_count++));
			}
		}
	}
	for (int i = 0; i < steps; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	sheet_run out = { 0.0, 0.0 };
	for (int k = 0; k < joint_count; ++k)
	{
		for (int a = SN_AXIS_X; a <= SN_AXIS_Z; ++a)
		{
			out.max_linear_error = fmax(out.max_linear_error, fabs(sn_joint_get_coordinate(world, joints[k], a)));
		}
		for (int a = SN_AXIS_RY; a <= SN_AXIS_RZ; ++a)
		{
			out.max_angular_error = fmax(out.max_angular_error, fabs(sn_joint_get_coordinate(world, joints[k], a)));
		}
	}
	test_free(bodies);
	test_free(joints);
	sn_world_destroy(world);
	return out;
}
