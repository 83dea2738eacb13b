#include "scenes/contacts.h"

#include "scenes/articulations.h"

#include <math.h>

#define TRY_(call)                                                                                                     \
	do                                                                                                                 \
	{                                                                                                                  \
		sn_error sn_try_ = (call);                                                                                     \
		if (sn_try_ != SN_ERR_OK)                                                                                      \
			return sn_try_;                                                                                            \
	} while (0)

sn_material scene_material(double friction, double restitution)
{
	sn_material m = sn_default_material();
	m.friction = friction;
	m.restitution = restitution;
	return m;
}

sn_error scene_ground(sn_world* world, sn_vec3 normal, sn_material material, sn_shape_id* plane)
{
	sn_shape_def sd = sn_default_shape_def();
	sd.geometry = sn_geometry_plane(normal, 0.0);
	sd.material = material;
	sn_shape_id id;
	TRY_(sn_create_shape(world, &sd, &id));
	if (plane != NULL)
	{
		*plane = id;
	}
	return SN_ERR_OK;
}

sn_error scene_box(sn_world* world, sn_transform pose, double half, double mass, sn_material material, sn_body_id* body,
				   sn_shape_id* shape)
{
	sn_body_def bd = sn_default_body_def();
	bd.pose = pose;
	bd.mass = mass;
	bd.inertia = sn_inertia_box(mass, sn_v3(half, half, half)); // m (h^2 + h^2) / 3 = m (2h)^2 / 6
	TRY_(sn_create_body(world, &bd, body));
	sn_shape_def sd = sn_default_shape_def();
	sd.body = *body;
	sd.geometry = sn_geometry_box(sn_v3(half, half, half));
	sd.material = material;
	sn_shape_id id;
	TRY_(sn_create_shape(world, &sd, &id));
	if (shape != NULL)
	{
		*shape = id;
	}
	return SN_ERR_OK;
}

sn_error scene_ball(sn_world* world, sn_vec3 at, double radius, double mass, sn_material material, sn_body_id* body,
					sn_shape_id* shape)
{
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = at;
	bd.mass = mass;
	bd.inertia = sn_inertia_sphere(mass, radius);
	TRY_(sn_create_body(world, &bd, body));
	sn_shape_def sd = sn_default_shape_def();
	sd.body = *body;
	sd.geometry = sn_geometry_sphere(radius);
	sd.material = material;
	sn_shape_id id;
	TRY_(sn_create_shape(world, &sd, &id));
	if (shape != NULL)
	{
		*shape = id;
	}
	return SN_ERR_OK;
}

// ---- C1..C8 ----------------------------------------------------------------------------------------------

sn_error scene_c1_resting_box(sn_world* world, sn_body_id* box)
{
	sn_material m = scene_material(SCENE_CONTACT_FRICTION, 0.0);
	TRY_(scene_ground(world, sn_v3(0, 0, 1), m, NULL));
	sn_transform pose = { sn_v3(0, 0, 0.1), sn_quat_identity() };
	return scene_box(world, pose, 0.1, 1.0, m, box, NULL);
}

sn_vec3 scene_c2_downhill(void)
{
	return sn_v3(cos(SCENE_C2_ANGLE), 0.0, -sin(SCENE_C2_ANGLE));
}

sn_error scene_c2_incline(sn_world* world, double friction, sn_body_id* box)
{
	sn_material m = scene_material(friction, 0.0);
	sn_vec3 n = sn_v3(sin(SCENE_C2_ANGLE), 0.0, cos(SCENE_C2_ANGLE));
	TRY_(scene_ground(world, n, m, NULL));
	// Turning +z by 30 degrees about +y gives the normal: the box's bottom face lies on the plane.
	sn_transform pose = { sn_scale(0.1, n), sn_quat_from_axis_angle(sn_v3(0, 1, 0), SCENE_C2_ANGLE) };
	return scene_box(world, pose, 0.1, 1.0, m, box, NULL);
}

sn_error scene_c3_bounce(sn_world* world, double restitution, sn_body_id* ball)
{
	sn_material m = scene_material(SCENE_CONTACT_FRICTION, restitution);
	TRY_(scene_ground(world, sn_v3(0, 0, 1), m, NULL));
	return scene_ball(world, sn_v3(0, 0, 1.1), 0.1, 1.0, m, ball, NULL);
}

sn_error scene_c4_rolling_sphere(sn_world* world, sn_body_id* ball)
{
	sn_material m = scene_material(1.0, 0.0);
	sn_vec3 n = sn_v3(sin(SCENE_C4_ANGLE), 0.0, cos(SCENE_C4_ANGLE));
	TRY_(scene_ground(world, n, m, NULL));
	return scene_ball(world, sn_scale(0.1, n), 0.1, 1.0, m, ball, NULL);
}

sn_error scene_c5_stack(sn_world* world, sn_body_id boxes[SCENE_C5_BOXES])
{
	sn_material m = scene_material(SCENE_CONTACT_FRICTION, 0.0);
	TRY_(scene_ground(world, sn_v3(0, 0, 1), m, NULL));
	for (int i = 0; i < SCENE_C5_BOXES; ++i)
	{
		sn_transform pose = { sn_v3(0, 0, 0.1 + 0.2 * i), sn_quat_identity() };
		TRY_(scene_box(world, pose, 0.1, 1.0, m, boxes + i, NULL));
	}
	return SN_ERR_OK;
}

sn_error scene_c6_pyramid(sn_world* world, sn_body_id boxes[SCENE_C6_BOXES])
{
	sn_material m = scene_material(SCENE_CONTACT_FRICTION, 0.0);
	TRY_(scene_ground(world, sn_v3(0, 0, 1), m, NULL));
	int at = 0;
	for (int k = 0; k < SCENE_C6_ROWS; ++k)
	{
		int n = SCENE_C6_ROWS - k;
		for (int i = 0; i < n; ++i)
		{
			sn_transform pose = { sn_v3((i - 0.5 * (n - 1)) * 0.2, 0.0, 0.1 + 0.2 * k), sn_quat_identity() };
			TRY_(scene_box(world, pose, 0.1, 1.0, m, boxes + at++, NULL));
		}
	}
	return SN_ERR_OK;
}

double scene_c7_jitter(uint32_t index, uint32_t salt)
{
	uint32_t h = index * 2654435761u + salt * 40503u;
	h ^= h >> 15;
	h *= 2246822519u;
	h ^= h >> 13;
	return 0.01 * ((double)(h % 10001u) / 10000.0 - 0.5);
}

sn_error scene_c7_spheres(sn_world* world, sn_body_id spheres[SCENE_C7_SPHERES])
{
	sn_material m = scene_material(SCENE_CONTACT_FRICTION, 0.0);
	TRY_(scene_ground(world, sn_v3(0, 0, 1), m, NULL));
	// Four walls of the world, 0.1 m thick, z in [0, 1], inner faces at +-0.75; 1.7 m long to close the
	// corners.
	const double inner = SCENE_C7_INNER, t = 0.05, h = 0.5, len = inner + 2.0 * t;
	const sn_vec3 centres[4] = { sn_v3(inner + t, 0, h), sn_v3(-inner - t, 0, h), sn_v3(0, inner + t, h),
								 sn_v3(0, -inner - t, h) };
	const sn_vec3 halves[4] = { sn_v3(t, len, h), sn_v3(t, len, h), sn_v3(len, t, h), sn_v3(len, t, h) };
	for (int w = 0; w < 4; ++w)
	{
		sn_shape_def sd = sn_default_shape_def();
		sd.local_pose.p = centres[w];
		sd.geometry = sn_geometry_box(halves[w]);
		sd.material = m;
		sn_shape_id id;
		TRY_(sn_create_shape(world, &sd, &id));
	}
	for (uint32_t k = 0; k < 10; ++k)
	{
		for (uint32_t j = 0; j < 10; ++j)
		{
			for (uint32_t i = 0; i < 10; ++i)
			{
				uint32_t idx = 100 * k + 10 * j + i;
				sn_vec3 at = sn_v3((i - 4.5) * 0.12 + scene_c7_jitter(idx, 1),
								   (j - 4.5) * 0.12 + scene_c7_jitter(idx, 2), 0.30 + 0.12 * k);
				TRY_(scene_ball(world, at, SCENE_C7_RADIUS, 0.1, m, spheres + idx, NULL));
			}
		}
	}
	return SN_ERR_OK;
}

// ---- C8 --------------------------------------------------------------------------------------------------

// A capsule link along x (the capsule's axis z turned onto x), of the scene's radius and core length.
static sn_shape_def c8_capsule_def(void)
{
	sn_shape_def sd = sn_default_shape_def();
	sd.geometry = sn_geometry_capsule(SCENE_C8_RADIUS, 0.5 * SCENE_C8_SPACING);
	sd.local_pose.q = sn_quat_from_axis_angle(sn_v3(0, 1, 0), 0.5 * SN_PI);
	sd.material = scene_material(SCENE_CONTACT_FRICTION, 0.0);
	return sd;
}

// The link's mass properties: a solid cylinder and two solid hemispheres (the shape's closed form) of the
// link's mass, about its centre, in link axes.
static sn_error c8_link_mass(sn_world* world, sn_mass_properties* out)
{
	sn_shape_def sd = c8_capsule_def();
	TRY_(sn_shape_def_compute_mass(world, &sd, 1.0, out));
	double scale = SCENE_C8_LINK_MASS / out->mass;
	out->mass = SCENE_C8_LINK_MASS;
	sn_mat33 i = out->inertia;
	out->inertia = sn_mat33_diag(scale * i.cx.x, scale * i.cy.y, scale * i.cz.z);
	return SN_ERR_OK;
}

static sn_vec3 c8_chain_centre(int a, int b)
{
	return sn_v3((a - 4.5) * 1.3, (b - 4.5) * 0.15, 0.5);
}

static sn_quat c8_hinge_axis(int link)
{
	return (link % 2 == 1) ? scene_x_to_y() : scene_x_to_z();
}

sn_error scene_c8_chains_articulated(sn_world* world, sn_articulation_id chains[SCENE_C8_CHAINS])
{
	TRY_(scene_ground(world, sn_v3(0, 0, 1), scene_material(SCENE_CONTACT_FRICTION, 0.0), NULL));
	sn_mass_properties mp;
	TRY_(c8_link_mass(world, &mp));
	for (int a = 0; a < 10; ++a)
	{
		for (int b = 0; b < 10; ++b)
		{
			sn_vec3 centre = c8_chain_centre(a, b);
			sn_link_def links[SCENE_C8_LINKS];
			for (int l = 0; l < SCENE_C8_LINKS; ++l)
			{
				links[l] = sn_default_link_def();
				links[l].mass = mp.mass;
				links[l].inertia = mp.inertia;
				if (l == 0)
				{
					continue;
				}
				links[l].parent = l - 1;
				links[l].joint_type = SN_LINK_JOINT_REVOLUTE;
				links[l].parent_frame.p = sn_v3(0.5 * SCENE_C8_SPACING, 0, 0);
				links[l].parent_frame.q = c8_hinge_axis(l);
				links[l].child_frame.p = sn_v3(-0.5 * SCENE_C8_SPACING, 0, 0);
				links[l].child_frame.q = c8_hinge_axis(l);
			}
			sn_articulation_def ad = sn_default_articulation_def();
			ad.fixed_base = false;
			ad.self_collision = true;
			ad.base_pose.p = sn_add(centre, sn_v3(-4.5 * SCENE_C8_SPACING, 0, 0));
			sn_articulation_id id;
			TRY_(sn_create_articulation(world, &ad, links, SCENE_C8_LINKS, &id));
			chains[10 * a + b] = id;
			for (int l = 0; l < SCENE_C8_LINKS; ++l)
			{
				sn_shape_def sd = c8_capsule_def();
				sd.body = sn_articulation_get_link_body(world, id, l);
				sn_shape_id shape;
				TRY_(sn_create_shape(world, &sd, &shape));
			}
		}
	}
	return SN_ERR_OK;
}

sn_error scene_c8_chains_maximal(sn_world* world, sn_body_id bodies[SCENE_C8_CHAINS * SCENE_C8_LINKS],
								 sn_joint_id joints[SCENE_C8_CHAINS * (SCENE_C8_LINKS - 1)])
{
	TRY_(scene_ground(world, sn_v3(0, 0, 1), scene_material(SCENE_CONTACT_FRICTION, 0.0), NULL));
	sn_mass_properties mp;
	TRY_(c8_link_mass(world, &mp));
	for (int a = 0; a < 10; ++a)
	{
		for (int b = 0; b < 10; ++b)
		{
			int c = 10 * a + b;
			sn_vec3 centre = c8_chain_centre(a, b);
			for (int l = 0; l < SCENE_C8_LINKS; ++l)
			{
				sn_body_def bd = sn_default_body_def();
				bd.pose.p = sn_add(centre, sn_v3((l - 4.5) * SCENE_C8_SPACING, 0, 0));
				bd.mass = mp.mass;
				bd.inertia = mp.inertia;
				sn_body_id* body = bodies + SCENE_C8_LINKS * c + l;
				TRY_(sn_create_body(world, &bd, body));
				sn_shape_def sd = c8_capsule_def();
				sd.body = *body;
				sn_shape_id shape;
				TRY_(sn_create_shape(world, &sd, &shape));
				if (l == 0)
				{
					continue;
				}
				sn_hinge_joint_def hd = sn_default_hinge_joint_def();
				hd.base.body_a = body[-1];
				hd.base.body_b = *body;
				hd.base.frame_a = (sn_transform){ sn_v3(0.5 * SCENE_C8_SPACING, 0, 0), c8_hinge_axis(l) };
				hd.base.frame_b = (sn_transform){ sn_v3(-0.5 * SCENE_C8_SPACING, 0, 0), c8_hinge_axis(l) };
				TRY_(sn_create_hinge_joint(world, &hd, joints + (SCENE_C8_LINKS - 1) * c + l - 1));
			}
		}
	}
	return SN_ERR_OK;
}

// ---- the gripper ------------------------------------------------------------------------------------------

double scene_gripper_lift_target(double t)
{
	if (t <= SCENE_GRIPPER_LIFT_START)
	{
		return 0.0;
	}
	if (t >= SCENE_GRIPPER_LIFT_END)
	{
		return SCENE_GRIPPER_LIFT;
	}
	return SCENE_GRIPPER_LIFT * (t - SCENE_GRIPPER_LIFT_START) / (SCENE_GRIPPER_LIFT_END - SCENE_GRIPPER_LIFT_START);
}

// A prismatic link along `axis` (the joint frame's x turned onto it) at `at` in its parent's frame, its
// own frame at its centre of mass and aligned with its parent's, a solid box of `half` and `mass`.
static sn_link_def gripper_link(int parent, sn_vec3 at, sn_quat axis, sn_vec3 half, double mass)
{
	sn_link_def l = sn_default_link_def();
	l.parent = parent;
	l.joint_type = SN_LINK_JOINT_PRISMATIC;
	l.parent_frame = (sn_transform){ at, axis };
	l.child_frame = (sn_transform){ sn_v3(0, 0, 0), axis };
	l.mass = mass;
	l.inertia = sn_inertia_box(mass, half);
	return l;
}

static sn_drive gripper_drive(double stiffness, double damping, double max_force, double target)
{
	sn_drive d = sn_default_drive();
	d.enabled = true;
	d.stiffness = stiffness;
	d.damping = damping;
	d.max_force = max_force;
	d.target_position = target;
	return d;
}

sn_error scene_gripper_build(sn_world* world, scene_gripper* out)
{
	const sn_material m = scene_material(SCENE_CONTACT_FRICTION, 0.0);
	TRY_(scene_ground(world, sn_v3(0, 0, 1), m, NULL));
	const sn_vec3 palm_half = sn_v3(0.12, 0.03, 0.02), finger_half = sn_v3(0.01, 0.025, 0.05);
	const sn_vec3 palm_at = sn_v3(0, 0, 0.14), finger_at = sn_v3(0.08, 0, 0.065);
	// Half a turn about z: the right finger's joint x axis points along -x, its closing direction.
	const sn_quat minus_x = sn_quat_from_axis_angle(sn_v3(0, 0, 1), SN_PI);
	sn_link_def links[SCENE_GRIPPER_LINKS];
	links[0] = sn_default_link_def();
	links[1] = gripper_link(0, palm_at, scene_x_to_z(), palm_half, SCENE_GRIPPER_PALM_MASS);
	links[1].drive[0] = gripper_drive(1e4, 300.0, 100.0, 0.0);
	links[2] = gripper_link(1, sn_v3(-finger_at.x, 0, finger_at.z - palm_at.z), sn_quat_identity(), finger_half,
							SCENE_GRIPPER_FINGER_MASS);
	links[2].drive[0] = gripper_drive(1e4, 20.0, 20.0, 0.04);
	links[3] = gripper_link(1, sn_v3(finger_at.x, 0, finger_at.z - palm_at.z), minus_x, finger_half,
							SCENE_GRIPPER_FINGER_MASS);
	sn_articulation_def ad = sn_default_articulation_def();
	TRY_(sn_create_articulation(world, &ad, links, SCENE_GRIPPER_LINKS, &out->articulation));
	const sn_vec3 halves[SCENE_GRIPPER_LINKS] = { sn_v3(0, 0, 0), palm_half, finger_half, finger_half };
	for (int l = 1; l < SCENE_GRIPPER_LINKS; ++l)
	{
		sn_shape_def sd = sn_default_shape_def();
		sd.body = sn_articulation_get_link_body(world, out->articulation, l);
		sd.geometry = sn_geometry_box(halves[l]);
		sd.material = m;
		sn_shape_id shape;
		TRY_(sn_create_shape(world, &sd, &shape));
	}
	out->palm = sn_articulation_get_link_body(world, out->articulation, 1);
	// q_right + (-1) q_left = 0.
	sn_mimic_def md = sn_default_mimic_def();
	md.articulation = out->articulation;
	md.dof_count = 2;
	md.dofs[0] = SCENE_GRIPPER_MIMIC_DOF;
	md.dofs[1] = SCENE_GRIPPER_FINGER_DOF;
	md.gearing[1] = -1.0;
	TRY_(sn_create_mimic_joint(world, &md, &out->mimic));
	sn_transform pose = { sn_v3(0, 0, 0.05), sn_quat_identity() };
	return scene_box(world, pose, 0.05, SCENE_GRIPPER_BOX_MASS, m, &out->box, NULL);
}

// ---- simple cases ------------------------------------------------------------------------------------------

sn_error scene_resting_box(sn_world* world, double half, sn_material material, sn_body_id* box)
{
	TRY_(scene_ground(world, sn_v3(0, 0, 1), material, NULL));
	sn_transform pose = { sn_v3(0, 0, half), sn_quat_identity() };
	return scene_box(world, pose, half, 1.0, material, box, NULL);
}

sn_error scene_sliding_box(sn_world* world, double v0, double friction, sn_body_id* box)
{
	sn_material m = scene_material(friction, 0.0);
	TRY_(scene_resting_box(world, 0.1, m, box));
	return sn_body_set_linear_velocity(world, *box, sn_v3(v0, 0, 0));
}

sn_error scene_dropped_ball(sn_world* world, double height, double restitution, sn_body_id* ball)
{
	sn_material m = scene_material(SCENE_CONTACT_FRICTION, restitution);
	TRY_(scene_ground(world, sn_v3(0, 0, 1), m, NULL));
	return scene_ball(world, sn_v3(0, 0, height + 0.1), 0.1, 1.0, m, ball, NULL);
}

sn_error scene_slab_robot(sn_world* world, double base_mass, sn_vec3 half, sn_quat orientation,
						  sn_articulation_id* robot, sn_body_id* base)
{
	const sn_material m = scene_material(0.5, 0.0);
	TRY_(scene_ground(world, sn_v3(0, 0, 1), m, NULL));
	sn_link_def links[2];
	links[0] = sn_default_link_def();
	links[0].mass = base_mass;
	links[0].inertia = sn_inertia_box(base_mass, half);
	links[1] = scene_hinge_link(0, sn_v3(0.1, 0, 0), 1.0, 0.3, sn_mat33_diag(0.01, 0.02, 0.015));
	links[1].initial_velocity[0] = 2.0;
	links[1].limit[0] = (sn_limit){ .enabled = true, .lower = -1.0, .upper = 0.05 };
	links[1].drive[0] = sn_default_drive();
	links[1].drive[0].enabled = true;
	links[1].drive[0].stiffness = 10.0;
	links[1].drive[0].damping = 0.1;
	links[1].drive[0].target_position = 1.0;
	sn_articulation_def ad = sn_default_articulation_def();
	ad.fixed_base = false;
	ad.base_pose.p = sn_v3(0, 0, 0.05);
	ad.base_pose.q = orientation;
	sn_articulation_id id;
	TRY_(sn_create_articulation(world, &ad, links, 2, &id));
	sn_shape_def sd = sn_default_shape_def();
	sd.body = sn_articulation_get_link_body(world, id, 0);
	sd.geometry = sn_geometry_box(half);
	sd.material = m;
	sn_shape_id slab;
	TRY_(sn_create_shape(world, &sd, &slab));
	*robot = id;
	if (base)
	{
		*base = sd.body;
	}
	return SN_ERR_OK;
}
