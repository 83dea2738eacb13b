// Rigid bodies: defaults, validation, the body pool, getters and setters, applied forces; and the bodies
// of articulation links (SN_BODY_LINK), whose state is read from their articulation.
#include "body.h"

#include "artic/artic.h"
#include "island.h"
#include "joint/joint.h"
#include "math/mathx.h"
#include "shape.h"
#include "world.h"

#include "sinew/body.h"
#include "sinew/joint.h"

#include <math.h>
#include <string.h>

sn_body_def sn_default_body_def(void)
{
	sn_body_def def;
	memset(&def, 0, sizeof(def));
	def.type = SN_BODY_DYNAMIC;
	def.pose = sn_transform_identity();
	def.mass = 1.0;
	def.inertia = sn_inertia_sphere(1.0, 0.1);
	def.gravity_scale = 1.0;
	return def;
}

sn_mat33 sn_inertia_box(double mass, sn_vec3 e)
{
	double k = mass / 3.0;
	return sn_mat33_diag(k * (e.y * e.y + e.z * e.z), k * (e.x * e.x + e.z * e.z), k * (e.x * e.x + e.y * e.y));
}

sn_mat33 sn_inertia_sphere(double mass, double radius)
{
	double i = 0.4 * mass * radius * radius;
	return sn_mat33_diag(i, i, i);
}

sn_mat33 sn_inertia_cylinder(double mass, double radius, double height)
{
	double side = mass * (3.0 * radius * radius + height * height) / 12.0;
	return sn_mat33_diag(side, side, 0.5 * mass * radius * radius);
}

body* body_get(const sn_world* world, sn_body_id id)
{
	if (world == NULL || id.index1 <= 0 || id.index1 > world->body_high)
	{
		return NULL;
	}
	body* b = world->bodies + (id.index1 - 1);
	return (b->live && world_id_generation(world, b->generation) == id.generation) ? b : NULL;
}

int32_t body_solver_index(const sn_world* world, int32_t body_index)
{
	return body_index < 0 ? 0 : world->bodies[body_index].solver_index;
}

sn_mat33 body_inv_inertia_world(const body* b)
{
	return sn_mat33_rotate_tensor(b->q, b->inv_inertia);
}

sn_transform body_pose(const body* b)
{
	sn_transform t = { sn_sub(b->com, sn_rotate(b->q, b->local_com)), b->q };
	return t;
}

// Velocity update over h: gravity and applied force, then the angular velocity with implicit
// gyroscopic torque. In body axes, I (w' - w) + h w' x (I w') = h tau is solved by one Newton step
// from w:
//   f = h (w x I w - tau),  J = I + h ([w]x I - [I w]x),  w' = w - J^-1 f
// which keeps a spinning asymmetric body's energy bounded where the explicit term would add energy.
// Damping last: v <- v / (1 + h c).
void body_integrate_velocity(const body* b, sn_vec3 gravity, double h, sn_vec3* v, sn_vec3* w)
{
	sn_vec3 accel = sn_mul_add(sn_scale(b->gravity_scale, gravity), b->inv_mass, b->force);
	sn_vec3 vn = sn_mul_add(*v, h, accel);
	sn_vec3 wb = sn_inv_rotate(b->q, *w);
	sn_vec3 tb = sn_inv_rotate(b->q, b->torque);
	sn_vec3 iw = sn_mat33_mul_v(b->inertia, wb);
	sn_vec3 f = sn_scale(h, sn_sub(sn_cross(wb, iw), tb));
	sn_mat33 jac = mat33_add(
		b->inertia,
		mat33_scale(h, mat33_add(sn_mat33_mul(mat33_skew(wb), b->inertia), mat33_scale(-1.0, mat33_skew(iw)))));
	wb = sn_sub(wb, mat33_solve(jac, f));
	sn_vec3 wn = sn_rotate(b->q, wb);
	*v = sn_scale(1.0 / (1.0 + h * b->linear_damping), vn);
	*w = sn_scale(1.0 / (1.0 + h * b->angular_damping), wn);
}

void body_prepare_solver_slots(sn_world* world)
{
	solver_body* sb = world->solver_bodies;
	solver_body_info* info = world->solver_infos;
	memset(sb, 0, sizeof(*sb));
	info[0].body = -1;
	info[0].inv_mass = 0.0;
	info[0].inv_inertia = sn_mat33_zero();
	int n = 1;
	for (int i = 0; i < world->body_high; ++i)
	{
		body* b = world->bodies + i;
		if (!b->live)
		{
			continue;
		}
		// Static bodies are the ground; a link's motion is its articulation's (its own solve); a sleeping body
		// rests like the ground until it is woken (island.c).
		bool skip = (world->solver_subset == SUBSET_MAXIMAL && b->articulated) ||
			(world->solver_subset == SUBSET_ARTICULATED && !b->articulated);
		if (b->type == SN_BODY_STATIC || b->type == SN_BODY_LINK || b->asleep || skip)
		{
			b->solver_index = 0;
			continue;
		}
		b->solver_index = n;
		memset(sb + n, 0, sizeof(*sb));
		sb[n].v = b->v;
		sb[n].w = b->w;
		info[n].body = i;
		info[n].inv_mass = b->inv_mass;
		info[n].inv_inertia = body_inv_inertia_world(b);
		n += 1;
	}
	world->solver_count = n;
}

void body_store_solver_velocities(sn_world* world)
{
	for (int i = 1; i < world->solver_count; ++i)
	{
		body* b = world->bodies + world->solver_infos[i].body;
		if (b->type == SN_BODY_DYNAMIC)
		{
			b->v = world->solver_bodies[i].v;
			b->w = world->solver_bodies[i].w;
		}
	}
}

// ---- link bodies --------------------------------------------------------------------------------------

static const artic* link_artic(const sn_world* world, const body* b)
{
	return world->artics->items + b->artic;
}

static sn_articulation_id link_artic_id(const sn_world* world, const body* b)
{
	sn_articulation_id id = { b->artic + 1, world_id_generation(world, link_artic(world, b)->generation) };
	return id;
}

body_motion body_motion_of(const sn_world* world, int32_t index)
{
	body_motion m;
	if (index < 0)
	{
		m.pose = sn_transform_identity();
		m.com = m.v = m.w = sn_v3(0, 0, 0);
		return m;
	}
	const body* b = world->bodies + index;
	if (b->type == SN_BODY_LINK)
	{
		const artic* a = link_artic(world, b);
		m.pose = artic_link_pose(a, b->link);
		m.com = sn_transform_point(m.pose, a->info[b->link].com);
		artic_point_velocity(a, b->link, m.com, &m.v, &m.w);
		return m;
	}
	m.pose = body_pose(b);
	m.com = b->com;
	m.v = b->v;
	m.w = b->w;
	return m;
}

sn_body_id body_id_of(const sn_world* world, int32_t index)
{
	sn_body_id id = { 0, 0 };
	if (index >= 0)
	{
		id.index1 = index + 1;
		id.generation = world_id_generation(world, world->bodies[index].generation);
	}
	return id;
}

sn_error body_reserve(sn_world* world, int count)
{
	int free_slots = 0;
	for (int32_t i = world->body_free; i >= 0 && free_slots < count; i = world->bodies[i].next_free)
	{
		free_slots += 1;
	}
	int fresh = count - free_slots;
	if (fresh <= 0)
	{
		return SN_ERR_OK;
	}
	if (world->body_high > INT32_MAX - 1 - fresh)
	{
		return SN_ERR_CAPACITY;
	}
	void* p = world->bodies;
	if (!memory_reserve(&world->memory, &p, &world->body_capacity, world->body_high + fresh, sizeof(body)))
	{
		return SN_ERR_NO_MEMORY;
	}
	world->bodies = p;
	return SN_ERR_OK;
}

// A slot from the free list or a fresh one (room reserved by the caller), cleared, live, with its
// generation.
static int32_t take_slot(sn_world* world)
{
	int32_t index = world->body_free;
	if (index < 0)
	{
		index = world->body_high++;
		world->bodies[index].generation = 1;
	}
	else
	{
		world->body_free = world->bodies[index].next_free;
	}
	body* b = world->bodies + index;
	uint32_t generation = b->generation;
	memset(b, 0, sizeof(*b));
	b->generation = generation;
	b->next_free = -1;
	b->live = true;
	b->artic = -1;
	b->link = -1;
	b->shape_head = -1;
	b->q = sn_quat_identity();
	return index;
}

static void release_slot(sn_world* world, int32_t index)
{
	body* b = world->bodies + index;
	b->live = false;
	b->generation += 1;
	if (b->generation == 0)
	{
		b->generation = 1;
	}
	b->next_free = world->body_free;
	world->body_free = index;
}

void body_create_links(sn_world* world, int32_t artic_index, int link_count, int32_t* link_body)
{
	for (int l = 0; l < link_count; ++l)
	{
		int32_t index = take_slot(world);
		body* b = world->bodies + index;
		b->type = SN_BODY_LINK;
		b->artic = artic_index;
		b->link = l;
		link_body[l] = index;
	}
	world->contacts.proxies_stale = true;
}

void body_destroy_links(sn_world* world, int link_count, const int32_t* link_body)
{
	for (int l = 0; l < link_count; ++l)
	{
		int32_t index = link_body[l];
		if (index < 0 || index >= world->body_high || !world->bodies[index].live)
		{
			continue;
		}
		// Maximal joints onto the link go with it (as with a destroyed body).
		for (int i = 0; i < world->joint_high; ++i)
		{
			const joint* j = world->joints + i;
			if (j->live && (j->body_a == index || j->body_b == index))
			{
				sn_destroy_joint(world, joint_id_of(world, i));
			}
		}
		shape_destroy_body_shapes(world, index);
		contact_forget_body(world, index);
		release_slot(world, index);
	}
}

sn_error sn_body_get_link(const sn_world* world, sn_body_id id, sn_articulation_id* articulation, int* link)
{
	const body* b = body_get(world, id);
	if (b == NULL)
	{
		return SN_ERR_INVALID_ID;
	}
	if (b->type != SN_BODY_LINK)
	{
		return SN_ERR_WRONG_TYPE;
	}
	if (articulation != NULL)
	{
		*articulation = link_artic_id(world, b);
	}
	if (link != NULL)
	{
		*link = b->link;
	}
	return SN_ERR_OK;
}

sn_body_id sn_articulation_get_link_body(const sn_world* world, sn_articulation_id id, int link)
{
	const artic* a = artic_get(world, id);
	if (a == NULL || link < 0 || link >= a->link_count)
	{
		sn_body_id none = { 0, 0 };
		return none;
	}
	return body_id_of(world, a->link_body[link]);
}

bool sn_body_is_valid(const sn_world* world, sn_body_id id)
{
	return body_get(world, id) != NULL;
}

// What is wrong with a pose from outside: SN_ERR_NOT_FINITE, SN_ERR_ZERO_AXIS (a rotation that does not
// normalise) or SN_ERR_OK.
static sn_error pose_error(sn_transform pose)
{
	if (!sn_vec3_is_finite(pose.p) || !sn_quat_is_finite(pose.q))
	{
		return SN_ERR_NOT_FINITE;
	}
	return sn_quat_length(pose.q) < 1e-9 ? SN_ERR_ZERO_AXIS : SN_ERR_OK;
}

static const char* pose_error_text(sn_error err)
{
	return err == SN_ERR_NOT_FINITE ? "position and rotation must be finite" : "rotation quaternion has zero length";
}

static sn_error check_pose(sn_world* world, const char* what, sn_transform pose, sn_quat* unit)
{
	sn_error err = pose_error(pose);
	if (err != SN_ERR_OK)
	{
		return world_fail(world, err, "%s: %s", what, pose_error_text(err));
	}
	*unit = sn_quat_normalize(pose.q);
	return SN_ERR_OK;
}

static sn_error check_mass(sn_world* world, const char* what, double mass, sn_mat33 inertia, sn_vec3 com)
{
	if (!isfinite(mass) || !mat33_is_finite(inertia) || !sn_vec3_is_finite(com))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: mass, inertia and centre of mass must be finite", what);
	}
	if (!(mass > 0.0))
	{
		return world_fail(world, SN_ERR_NON_POSITIVE_MASS, "%s: mass must be > 0 kg, got %g", what, mass);
	}
	if (!mat33_is_spd(inertia))
	{
		return world_fail(world, SN_ERR_INERTIA_NOT_PD,
						  "%s: inertia must be symmetric positive definite (diagonal %g %g %g kg*m^2)", what,
						  inertia.cx.x, inertia.cy.y, inertia.cz.z);
	}
	return SN_ERR_OK;
}

static sn_error check_damping(sn_world* world, const char* what, double linear, double angular)
{
	if (!isfinite(linear) || !isfinite(angular))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: damping must be finite", what);
	}
	if (linear < 0.0 || angular < 0.0)
	{
		return world_fail(world, SN_ERR_NEGATIVE_VALUE, "%s: damping must be >= 0 1/s, got %g and %g", what, linear,
						  angular);
	}
	return SN_ERR_OK;
}

static bool valid_type(sn_body_type type)
{
	return type == SN_BODY_STATIC || type == SN_BODY_KINEMATIC || type == SN_BODY_DYNAMIC;
}

// Mass fields derived from type and mass properties.
static void set_mass_fields(body* b, double mass, sn_mat33 inertia, sn_vec3 local_com)
{
	b->mass = mass;
	b->inertia = inertia;
	b->local_com = local_com;
	if (b->type == SN_BODY_DYNAMIC)
	{
		b->inv_mass = 1.0 / mass;
		b->inv_inertia = mat33_inverse(inertia);
	}
	else
	{
		b->inv_mass = 0.0;
		b->inv_inertia = sn_mat33_zero();
	}
}

sn_error sn_create_body(sn_world* world, const sn_body_def* def, sn_body_id* out_id)
{
	if (def == NULL || out_id == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create body: def and out_id must not be NULL");
	}
	if (def->type == SN_BODY_LINK)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT,
						  "create body: link bodies are made by their articulation (sn_create_articulation)");
	}
	if (!valid_type(def->type))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create body: unknown body type %d", (int)def->type);
	}
	sn_quat q;
	sn_error err = check_pose(world, "create body: pose", def->pose, &q);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (!sn_vec3_is_finite(def->linear_velocity) || !sn_vec3_is_finite(def->angular_velocity))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "create body: velocities must be finite");
	}
	if (def->type == SN_BODY_DYNAMIC)
	{
		err = check_mass(world, "create body", def->mass, def->inertia, def->center_of_mass);
	}
	else if (!sn_vec3_is_finite(def->center_of_mass))
	{
		err = world_fail(world, SN_ERR_NOT_FINITE, "create body: centre of mass must be finite");
	}
	if (err == SN_ERR_OK)
	{
		err = check_damping(world, "create body", def->linear_damping, def->angular_damping);
	}
	if (err == SN_ERR_OK && !isfinite(def->gravity_scale))
	{
		err = world_fail(world, SN_ERR_NOT_FINITE, "create body: gravity_scale must be finite");
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}

	err = body_reserve(world, 1);
	if (err != SN_ERR_OK)
	{
		return world_fail(world, err,
						  err == SN_ERR_CAPACITY ? "create body: too many bodies" : "create body: out of memory");
	}
	int32_t index = take_slot(world);
	body* b = world->bodies + index;
	uint32_t generation = b->generation;
	b->type = def->type;
	bool dynamic = def->type == SN_BODY_DYNAMIC;
	set_mass_fields(b, dynamic ? def->mass : 0.0, dynamic ? def->inertia : sn_mat33_zero(), def->center_of_mass);
	b->linear_damping = def->linear_damping;
	b->angular_damping = def->angular_damping;
	b->gravity_scale = def->gravity_scale;
	b->q = q;
	b->com = sn_add(def->pose.p, sn_rotate(q, def->center_of_mass));
	if (def->type != SN_BODY_STATIC)
	{
		b->v = def->linear_velocity;
		b->w = def->angular_velocity;
	}
	b->user_data = def->user_data;
	world->body_count += 1;
	out_id->index1 = index + 1;
	out_id->generation = world_id_generation(world, generation);
	return SN_ERR_OK;
}

sn_error sn_destroy_body(sn_world* world, sn_body_id id)
{
	body* b = body_get(world, id);
	if (b == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "destroy body: invalid body id");
	}
	if (b->type == SN_BODY_LINK)
	{
		return world_fail(world, SN_ERR_WRONG_TYPE,
						  "destroy body: a link's body goes with its articulation (sn_destroy_articulation)");
	}
	int32_t index = id.index1 - 1;
	for (int i = 0; i < world->joint_high; ++i)
	{
		joint* j = world->joints + i;
		if (j->live && (j->body_a == index || j->body_b == index))
		{
			sn_destroy_joint(world, joint_id_of(world, i));
		}
	}
	shape_destroy_body_shapes(world, index);
	contact_forget_body(world, index);
	release_slot(world, index);
	world->body_count -= 1;
	return SN_ERR_OK;
}

#define GET_OR_(world, id, fallback)                                                                                   \
	const body* b = body_get(world, id);                                                                               \
	if (b == NULL)                                                                                                     \
		return fallback;

#define SET_OR_FAIL_(world, id, what)                                                                                  \
	body* b = body_get(world, id);                                                                                     \
	if (b == NULL)                                                                                                     \
		return world_fail(world, SN_ERR_INVALID_ID, "%s: invalid body id", what);

// Setters that would move or reshape a body refuse a link's: its motion and mass are the articulation's.
#define NOT_LINK_(world, b, what)                                                                                      \
	if ((b)->type == SN_BODY_LINK)                                                                                     \
		return world_fail(world, SN_ERR_WRONG_TYPE, "%s: a link's body moves with its articulation", what);

sn_body_type sn_body_get_type(const sn_world* world, sn_body_id id)
{
	GET_OR_(world, id, SN_BODY_STATIC);
	return b->type;
}

sn_transform sn_body_get_pose(const sn_world* world, sn_body_id id)
{
	GET_OR_(world, id, sn_transform_identity());
	return b->type == SN_BODY_LINK ? body_motion_of(world, id.index1 - 1).pose : body_pose(b);
}

sn_vec3 sn_body_get_center_of_mass(const sn_world* world, sn_body_id id)
{
	GET_OR_(world, id, sn_v3(0, 0, 0));
	return b->type == SN_BODY_LINK ? body_motion_of(world, id.index1 - 1).com : b->com;
}

sn_vec3 sn_body_get_linear_velocity(const sn_world* world, sn_body_id id)
{
	GET_OR_(world, id, sn_v3(0, 0, 0));
	return b->type == SN_BODY_LINK ? body_motion_of(world, id.index1 - 1).v : b->v;
}

sn_vec3 sn_body_get_angular_velocity(const sn_world* world, sn_body_id id)
{
	GET_OR_(world, id, sn_v3(0, 0, 0));
	return b->type == SN_BODY_LINK ? body_motion_of(world, id.index1 - 1).w : b->w;
}

sn_vec3 sn_body_get_point_velocity(const sn_world* world, sn_body_id id, sn_vec3 world_point)
{
	GET_OR_(world, id, sn_v3(0, 0, 0));
	if (b->type == SN_BODY_LINK)
	{
		sn_vec3 v, w;
		artic_point_velocity(link_artic(world, b), b->link, world_point, &v, &w);
		return v;
	}
	return sn_add(b->v, sn_cross(b->w, sn_sub(world_point, b->com)));
}

double sn_body_get_mass(const sn_world* world, sn_body_id id)
{
	GET_OR_(world, id, 0.0);
	return b->type == SN_BODY_LINK ? link_artic(world, b)->links[b->link].mass : b->mass;
}

sn_mat33 sn_body_get_inertia(const sn_world* world, sn_body_id id)
{
	GET_OR_(world, id, sn_mat33_zero());
	return b->type == SN_BODY_LINK ? link_artic(world, b)->info[b->link].inertia : b->inertia;
}

double sn_body_get_kinetic_energy(const sn_world* world, sn_body_id id)
{
	GET_OR_(world, id, 0.0);
	if (b->type == SN_BODY_LINK)
	{
		// The link's share of sn_articulation_get_kinetic_energy (a fixed base's link 0 does not move).
		const artic* a = link_artic(world, b);
		if (b->link == 0 && a->fixed_base)
		{
			return 0.0;
		}
		body_motion m = body_motion_of(world, id.index1 - 1);
		sn_vec3 wb = sn_inv_rotate(m.pose.q, m.w);
		double mass = a->links[b->link].mass;
		return 0.5 * mass * sn_dot(m.v, m.v) + 0.5 * sn_dot(wb, sn_mat33_mul_v(a->info[b->link].inertia, wb));
	}
	if (b->type != SN_BODY_DYNAMIC)
	{
		return 0.0;
	}
	sn_vec3 wb = sn_inv_rotate(b->q, b->w);
	return 0.5 * b->mass * sn_dot(b->v, b->v) + 0.5 * sn_dot(wb, sn_mat33_mul_v(b->inertia, wb));
}

uint64_t sn_body_get_user_data(const sn_world* world, sn_body_id id)
{
	GET_OR_(world, id, 0);
	return b->type == SN_BODY_LINK ? link_artic(world, b)->info[b->link].user_data : b->user_data;
}

sn_vec3 sn_body_get_applied_force(const sn_world* world, sn_body_id id)
{
	GET_OR_(world, id, sn_v3(0, 0, 0));
	return b->type == SN_BODY_LINK ? link_artic(world, b)->link_force[b->link].v : b->force;
}

sn_vec3 sn_body_get_applied_torque(const sn_world* world, sn_body_id id)
{
	GET_OR_(world, id, sn_v3(0, 0, 0));
	if (b->type == SN_BODY_LINK)
	{
		// The link force holds the torque about the world origin: move it to the centre of mass.
		const sv6* f = link_artic(world, b)->link_force + b->link;
		sn_vec3 com = body_motion_of(world, id.index1 - 1).com;
		return sn_sub(f->w, sn_cross(com, f->v));
	}
	return b->torque;
}

sn_error sn_body_set_pose(sn_world* world, sn_body_id id, sn_transform pose)
{
	SET_OR_FAIL_(world, id, "set body pose");
	NOT_LINK_(world, b, "set body pose");
	sn_quat q;
	sn_error err = check_pose(world, "set body pose", pose, &q);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	b->q = q;
	b->com = sn_add(pose.p, sn_rotate(q, b->local_com));
	b->moved = true;
	world->contacts.proxies_stale = true;
	island_wake_body(world, id.index1 - 1);
	island_wake_touching(world, id.index1 - 1); // a static body moved from under (or into) sleepers
	return SN_ERR_OK;
}

sn_error sn_body_set_linear_velocity(sn_world* world, sn_body_id id, sn_vec3 velocity)
{
	SET_OR_FAIL_(world, id, "set linear velocity");
	NOT_LINK_(world, b, "set linear velocity");
	if (!sn_vec3_is_finite(velocity))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "set linear velocity: velocity must be finite");
	}
	if (b->type == SN_BODY_STATIC)
	{
		return world_fail(world, SN_ERR_WRONG_TYPE, "set linear velocity: a static body cannot move");
	}
	b->v = velocity;
	island_wake_body(world, id.index1 - 1);
	return SN_ERR_OK;
}

sn_error sn_body_set_angular_velocity(sn_world* world, sn_body_id id, sn_vec3 velocity)
{
	SET_OR_FAIL_(world, id, "set angular velocity");
	NOT_LINK_(world, b, "set angular velocity");
	if (!sn_vec3_is_finite(velocity))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "set angular velocity: velocity must be finite");
	}
	if (b->type == SN_BODY_STATIC)
	{
		return world_fail(world, SN_ERR_WRONG_TYPE, "set angular velocity: a static body cannot move");
	}
	b->w = velocity;
	island_wake_body(world, id.index1 - 1);
	return SN_ERR_OK;
}

// ---- batch state inputs --------------------------------------------------------------------------------

// One entry of a batch, checked as sn_body_set_pose, sn_body_set_linear_velocity and
// sn_body_set_angular_velocity check it (same errors, in that order), with the entry's index in the
// detail line. Changes nothing.
static sn_error check_body_state(sn_world* world, const sn_body_state* s, int entry)
{
	const body* b = body_get(world, s->body);
	if (b == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "set body states: entry %d: invalid body id", entry);
	}
	if (b->type == SN_BODY_LINK)
	{
		return world_fail(world, SN_ERR_WRONG_TYPE,
						  "set body states: entry %d: a link's body moves with its articulation", entry);
	}
	sn_error err = s->has_pose ? pose_error(s->pose) : SN_ERR_OK;
	if (err != SN_ERR_OK)
	{
		return world_fail(world, err, "set body states: entry %d: pose: %s", entry, pose_error_text(err));
	}
	const bool has_velocity[2] = { s->has_linear_velocity, s->has_angular_velocity };
	const sn_vec3 velocity[2] = { s->linear_velocity, s->angular_velocity };
	static const char* names[2] = { "linear velocity", "angular velocity" };
	for (int k = 0; k < 2; ++k)
	{
		if (!has_velocity[k])
		{
			continue;
		}
		if (!sn_vec3_is_finite(velocity[k]))
		{
			return world_fail(world, SN_ERR_NOT_FINITE, "set body states: entry %d: %s must be finite", entry,
							  names[k]);
		}
		if (b->type == SN_BODY_STATIC)
		{
			return world_fail(world, SN_ERR_WRONG_TYPE, "set body states: entry %d: %s: a static body cannot move",
							  entry, names[k]);
		}
	}
	return SN_ERR_OK;
}

sn_error sn_world_check_body_states(sn_world* world, const sn_body_state* states, int count)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (count < 0 || (count > 0 && states == NULL))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "set body states: count must be >= 0 and states given");
	}
	for (int i = 0; i < count; ++i)
	{
		sn_error err = check_body_state(world, states + i, i);
		if (err != SN_ERR_OK)
		{
			return err;
		}
	}
	return SN_ERR_OK;
}

sn_error sn_world_set_body_states(sn_world* world, const sn_body_state* states, int count)
{
	sn_error err = sn_world_check_body_states(world, states, count);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	// Every entry is valid, and setting one changes no other's validity: apply in order, so a later entry
	// on the same body wins, as the single setters called in order would leave it.
	for (int i = 0; i < count; ++i)
	{
		const sn_body_state* s = states + i;
		body* b = body_get(world, s->body);
		if (s->has_pose)
		{
			b->q = sn_quat_normalize(s->pose.q);
			b->com = sn_add(s->pose.p, sn_rotate(b->q, b->local_com));
			b->moved = true;
			world->contacts.proxies_stale = true;
		}
		if (s->has_linear_velocity)
		{
			b->v = s->linear_velocity;
		}
		if (s->has_angular_velocity)
		{
			b->w = s->angular_velocity;
		}
		island_wake_body(world, s->body.index1 - 1);
		if (s->has_pose)
		{
			island_wake_touching(world, s->body.index1 - 1);
		}
	}
	return SN_ERR_OK;
}

sn_error sn_body_set_mass_properties(sn_world* world, sn_body_id id, double mass, sn_mat33 inertia,
									 sn_vec3 center_of_mass)
{
	SET_OR_FAIL_(world, id, "set mass properties");
	NOT_LINK_(world, b, "set mass properties");
	sn_error err = check_mass(world, "set mass properties", mass, inertia, center_of_mass);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	// Keep the body frame where it is; the centre of mass moves with the new offset.
	sn_transform pose = body_pose(b);
	set_mass_fields(b, mass, inertia, center_of_mass);
	b->com = sn_transform_point(pose, center_of_mass);
	island_wake_body(world, id.index1 - 1);
	return SN_ERR_OK;
}

sn_error sn_body_set_damping(sn_world* world, sn_body_id id, double linear_damping, double angular_damping)
{
	SET_OR_FAIL_(world, id, "set damping");
	NOT_LINK_(world, b, "set damping");
	sn_error err = check_damping(world, "set damping", linear_damping, angular_damping);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	b->linear_damping = linear_damping;
	b->angular_damping = angular_damping;
	island_wake_body(world, id.index1 - 1);
	return SN_ERR_OK;
}

sn_error sn_body_set_gravity_scale(sn_world* world, sn_body_id id, double gravity_scale)
{
	SET_OR_FAIL_(world, id, "set gravity scale");
	NOT_LINK_(world, b, "set gravity scale");
	if (!isfinite(gravity_scale))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "set gravity scale: must be finite");
	}
	b->gravity_scale = gravity_scale;
	island_wake_body(world, id.index1 - 1);
	return SN_ERR_OK;
}

sn_error sn_body_set_type(sn_world* world, sn_body_id id, sn_body_type type)
{
	SET_OR_FAIL_(world, id, "set body type");
	NOT_LINK_(world, b, "set body type");
	if (type == SN_BODY_LINK)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "set body type: link bodies are made by articulations");
	}
	if (!valid_type(type))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "set body type: unknown type %d", (int)type);
	}
	if (type == SN_BODY_DYNAMIC && !(b->mass > 0.0))
	{
		return world_fail(world, SN_ERR_NON_POSITIVE_MASS,
						  "set body type: set mass properties before making the body dynamic");
	}
	int32_t index = id.index1 - 1;
	if (type != SN_BODY_STATIC && shape_body_has_static_geometry(world, index))
	{
		return world_fail(world, SN_ERR_WRONG_TYPE,
						  "set body type: the body carries a mesh or a plane, which only a static body may");
	}
	if (type != b->type)
	{
		sn_error err = shape_retype_body(world, index, type);
		if (err != SN_ERR_OK)
		{
			return world_fail(world, err, "set body type: out of memory for the shapes' broadphase proxies");
		}
	}
	b->type = type;
	b->moved = true; // its shapes are placed again where the body is now (a static body's are not otherwise)
	set_mass_fields(b, b->mass, b->inertia, b->local_com);
	if (type == SN_BODY_STATIC)
	{
		b->v = sn_v3(0, 0, 0);
		b->w = sn_v3(0, 0, 0);
	}
	island_wake_body(world, id.index1 - 1);
	island_wake_touching(world, id.index1 - 1);
	return SN_ERR_OK;
}

sn_error sn_body_set_user_data(sn_world* world, sn_body_id id, uint64_t user_data)
{
	SET_OR_FAIL_(world, id, "set user data");
	if (b->type == SN_BODY_LINK)
	{
		world->artics->items[b->artic].info[b->link].user_data = user_data;
		return SN_ERR_OK;
	}
	b->user_data = user_data;
	return SN_ERR_OK;
}

sn_error sn_body_apply_force(sn_world* world, sn_body_id id, sn_vec3 force, sn_vec3 world_point)
{
	SET_OR_FAIL_(world, id, "apply force");
	if (b->type == SN_BODY_LINK)
	{
		return sn_articulation_apply_link_force(world, link_artic_id(world, b), b->link, force, world_point);
	}
	if (!sn_vec3_is_finite(force) || !sn_vec3_is_finite(world_point))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "apply force: force and point must be finite");
	}
	b->force = sn_add(b->force, force);
	b->torque = sn_add(b->torque, sn_cross(sn_sub(world_point, b->com), force));
	island_wake_body(world, id.index1 - 1);
	return SN_ERR_OK;
}

sn_error sn_body_apply_force_at_center(sn_world* world, sn_body_id id, sn_vec3 force)
{
	SET_OR_FAIL_(world, id, "apply force");
	if (b->type == SN_BODY_LINK)
	{
		return sn_articulation_apply_link_force(world, link_artic_id(world, b), b->link, force,
												body_motion_of(world, id.index1 - 1).com);
	}
	if (!sn_vec3_is_finite(force))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "apply force: force must be finite");
	}
	b->force = sn_add(b->force, force);
	island_wake_body(world, id.index1 - 1);
	return SN_ERR_OK;
}

sn_error sn_body_apply_torque(sn_world* world, sn_body_id id, sn_vec3 torque)
{
	SET_OR_FAIL_(world, id, "apply torque");
	if (b->type == SN_BODY_LINK)
	{
		return sn_articulation_apply_link_torque(world, link_artic_id(world, b), b->link, torque);
	}
	if (!sn_vec3_is_finite(torque))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "apply torque: torque must be finite");
	}
	b->torque = sn_add(b->torque, torque);
	island_wake_body(world, id.index1 - 1);
	return SN_ERR_OK;
}
