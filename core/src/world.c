// The world: settings, pools, the step's outer loop (substeps, forces out, breaking, divergence) and
// the queries that span all objects.
#include "world.h"

#include "constraint/link_row.h"
#include "island.h"

#include "hash.h"

#include "artic/artic.h"
#include "solver/solver.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum
{
	MAX_ITERATIONS = 1000,
	MAX_SUBSTEPS = 1000
};

sn_world_def sn_default_world_def(void)
{
	sn_world_def def;
	memset(&def, 0, sizeof(def));
	def.gravity = sn_v3(0.0, 0.0, -9.81);
	def.time_step = 0.001;
	def.solver = SN_SOLVER_TGS;
	def.position_iterations = 8;
	def.velocity_iterations = 1;
	def.substeps = 1;
	def.erp = 0.2;
	def.warm_start = 1.0;
	def.implicit_alpha = 1.0;
	def.implicit_beta = 1.0;
	def.divergence_speed = 1e6;
	def.contact = sn_default_contact_settings();
	def.sleep = sn_default_sleep_settings();
	return def;
}

sn_sleep_settings sn_default_sleep_settings(void)
{
	sn_sleep_settings s;
	memset(&s, 0, sizeof(s));
	s.enabled = false;
	s.linear_speed = 0.05;
	s.angular_speed = 0.05;
	s.time_to_sleep = 0.5;
	return s;
}

sn_contact_settings sn_default_contact_settings(void)
{
	sn_contact_settings c;
	memset(&c, 0, sizeof(c));
	c.slop = 0.0005;
	c.max_push_speed = 1.0;
	c.restitution_threshold = 1.0;
	c.friction_mix = SN_MIX_GEOMETRIC_MEAN;
	c.restitution_mix = SN_MIX_MAX;
	return c;
}

static sn_error check_def(const sn_world_def* def, char* detail, size_t cap)
{
#define FAIL_(err, ...)                                                                                                \
	do                                                                                                                 \
	{                                                                                                                  \
		if (detail != NULL && cap > 0)                                                                                 \
			snprintf(detail, cap, __VA_ARGS__);                                                                        \
		return err;                                                                                                    \
	} while (0)
	if (def == NULL)
		FAIL_(SN_ERR_INVALID_ARGUMENT, "world def is NULL");
	if (!sn_vec3_is_finite(def->gravity))
		FAIL_(SN_ERR_NOT_FINITE, "gravity must be finite");
	if (!isfinite(def->time_step))
		FAIL_(SN_ERR_NOT_FINITE, "time_step must be finite");
	if (!(def->time_step > 0.0 && def->time_step <= 1.0))
		FAIL_(SN_ERR_INVALID_ARGUMENT, "time_step must be in (0, 1] s, got %g", def->time_step);
	if ((int)def->solver < 0 || def->solver >= SN_SOLVER_COUNT)
		FAIL_(SN_ERR_INVALID_ARGUMENT, "unknown solver %d", (int)def->solver);
	if (def->position_iterations < 1 || def->position_iterations > MAX_ITERATIONS)
		FAIL_(SN_ERR_INVALID_ARGUMENT, "position_iterations must be in [1, %d], got %d", MAX_ITERATIONS,
			  def->position_iterations);
	if (def->velocity_iterations < 0 || def->velocity_iterations > MAX_ITERATIONS)
		FAIL_(SN_ERR_INVALID_ARGUMENT, "velocity_iterations must be in [0, %d], got %d", MAX_ITERATIONS,
			  def->velocity_iterations);
	if (def->substeps < 1 || def->substeps > MAX_SUBSTEPS)
		FAIL_(SN_ERR_INVALID_ARGUMENT, "substeps must be in [1, %d], got %d", MAX_SUBSTEPS, def->substeps);
	if (!isfinite(def->erp))
		FAIL_(SN_ERR_NOT_FINITE, "erp must be finite");
	if (def->erp < 0.0 || def->erp > 1.0)
		FAIL_(SN_ERR_INVALID_ARGUMENT, "erp must be in [0, 1], got %g", def->erp);
	if (!isfinite(def->warm_start))
		FAIL_(SN_ERR_NOT_FINITE, "warm_start must be finite");
	if (def->warm_start < 0.0 || def->warm_start > 1.0)
		FAIL_(SN_ERR_INVALID_ARGUMENT, "warm_start must be in [0, 1], got %g", def->warm_start);
	if (!isfinite(def->implicit_alpha) || !isfinite(def->implicit_beta))
		FAIL_(SN_ERR_NOT_FINITE, "implicit_alpha and implicit_beta must be finite");
	if (!(def->implicit_alpha >= 0.5 && def->implicit_alpha <= 1.0))
		FAIL_(SN_ERR_INVALID_ARGUMENT, "implicit_alpha must be in [0.5, 1], got %g", def->implicit_alpha);
	if (!(def->implicit_beta >= 0.5 && def->implicit_beta <= 1.0))
		FAIL_(SN_ERR_INVALID_ARGUMENT, "implicit_beta must be in [0.5, 1], got %g", def->implicit_beta);
	if (!isfinite(def->divergence_speed))
		FAIL_(SN_ERR_NOT_FINITE, "divergence_speed must be finite");
	if (!(def->divergence_speed > 0.0))
		FAIL_(SN_ERR_INVALID_ARGUMENT, "divergence_speed must be positive, got %g", def->divergence_speed);
	const sn_contact_settings* cs = &def->contact;
	if (!isfinite(cs->slop) || !isfinite(cs->max_push_speed) || !isfinite(cs->restitution_threshold))
		FAIL_(SN_ERR_NOT_FINITE, "contact slop, max_push_speed and restitution_threshold must be finite");
	if (!(cs->slop >= 0.0 && cs->slop <= 0.1))
		FAIL_(SN_ERR_INVALID_ARGUMENT, "contact slop must be in [0, 0.1] m, got %g", cs->slop);
	if (!(cs->max_push_speed > 0.0 && cs->max_push_speed <= 1e3))
		FAIL_(SN_ERR_INVALID_ARGUMENT, "contact max_push_speed must be in (0, 1000] m/s, got %g", cs->max_push_speed);
	if (!(cs->restitution_threshold >= 0.0 && cs->restitution_threshold <= 1e3))
		FAIL_(SN_ERR_INVALID_ARGUMENT, "contact restitution_threshold must be in [0, 1000] m/s, got %g",
			  cs->restitution_threshold);
	if ((int)cs->friction_mix < 0 || cs->friction_mix >= SN_MIX_COUNT || (int)cs->restitution_mix < 0 ||
		cs->restitution_mix >= SN_MIX_COUNT)
		FAIL_(SN_ERR_INVALID_ARGUMENT, "contact friction_mix and restitution_mix must be sn_mix_rule values");
	const sn_sleep_settings* ss = &def->sleep;
	if (!isfinite(ss->linear_speed) || !isfinite(ss->angular_speed) || !isfinite(ss->time_to_sleep))
		FAIL_(SN_ERR_NOT_FINITE, "sleep speeds and time_to_sleep must be finite");
	if (!(ss->linear_speed >= 0.0 && ss->linear_speed <= 1e3) ||
		!(ss->angular_speed >= 0.0 && ss->angular_speed <= 1e3))
		FAIL_(SN_ERR_INVALID_ARGUMENT, "sleep linear_speed and angular_speed must be in [0, 1000]");
	if (!(ss->time_to_sleep > 0.0 && ss->time_to_sleep <= 1e6))
		FAIL_(SN_ERR_INVALID_ARGUMENT, "sleep time_to_sleep must be in (0, 1e6] s, got %g", ss->time_to_sleep);
	if ((def->allocator.alloc == NULL) != (def->allocator.free == NULL))
		FAIL_(SN_ERR_INVALID_ARGUMENT, "allocator needs both alloc and free, or neither");
	if (!solver_supported(def->solver))
		FAIL_(SN_ERR_UNSUPPORTED, "solver %s is not available in this build", sn_solver_name(def->solver));
#undef FAIL_
	if (detail != NULL && cap > 0)
	{
		detail[0] = '\0';
	}
	return SN_ERR_OK;
}

sn_error sn_world_def_check(const sn_world_def* def, char* detail, size_t detail_capacity)
{
	return check_def(def, detail, detail_capacity);
}

sn_error sn_world_create(const sn_world_def* def, sn_world** out_world)
{
	if (out_world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	sn_error err = check_def(def, NULL, 0);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	sn_memory memory;
	memory_init(&memory, def->allocator);
	sn_world* world = memory_alloc(&memory, sizeof(sn_world));
	if (world == NULL)
	{
		return SN_ERR_NO_MEMORY;
	}
	world->memory = memory;
	world->def = *def;
	world->body_free = -1;
	world->joint_free = -1;
	contact_init(world);
	*out_world = world;
	return SN_ERR_OK;
}

void sn_world_destroy(sn_world* world)
{
	if (world == NULL)
	{
		return;
	}
	sn_memory* m = &world->memory;
	memory_free(m, world->bodies, (size_t)world->body_capacity * sizeof(body));
	memory_free(m, world->joints, (size_t)world->joint_capacity * sizeof(joint));
	memory_free(m, world->solver_bodies, (size_t)world->solver_body_capacity * sizeof(solver_body));
	memory_free(m, world->solver_infos, (size_t)world->solver_info_capacity * sizeof(solver_body_info));
	memory_free(m, world->rows, (size_t)world->row_capacity * sizeof(row));
	memory_free(m, world->blocks, (size_t)world->block_capacity * sizeof(row_block));
	memory_free(m, world->break_events, (size_t)world->break_capacity * sizeof(sn_joint_break_event));
	solver_release(world);
	contact_solver_release(world);
	island_release(world);
	memory_free(&world->memory, world->link_rows.jac, (size_t)world->link_rows.capacity * sizeof(double));
	scratch_block_release(&world->memory, &world->scratch);
	contact_release(world);
	artic_store_destroy(world);
	sn_memory last = world->memory;
	memory_free(&last, world, sizeof(sn_world));
}

sn_error world_fail(sn_world* world, sn_error error, const char* format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(world->error_detail, sizeof(world->error_detail), format, args);
	va_end(args);
	return error;
}

const char* sn_world_last_error_detail(const sn_world* world)
{
	return world != NULL ? world->error_detail : "";
}

// Apply a candidate def: validate it whole, then copy. Nothing changes on failure.
static sn_error apply_def(sn_world* world, sn_world_def candidate)
{
	sn_error err = check_def(&candidate, world->error_detail, sizeof(world->error_detail));
	if (err == SN_ERR_OK)
	{
		world->def = candidate;
	}
	return err;
}

sn_error sn_world_set_gravity(sn_world* world, sn_vec3 gravity)
{
	sn_world_def d = world->def;
	d.gravity = gravity;
	sn_error err = apply_def(world, d);
	if (err == SN_ERR_OK)
	{
		island_wake_all(world); // new gravity moves every island
	}
	return err;
}

sn_vec3 sn_world_get_gravity(const sn_world* world)
{
	return world->def.gravity;
}

sn_error sn_world_set_time_step(sn_world* world, double time_step)
{
	sn_world_def d = world->def;
	d.time_step = time_step;
	return apply_def(world, d);
}

double sn_world_get_time_step(const sn_world* world)
{
	return world->def.time_step;
}

sn_error sn_world_set_solver(sn_world* world, sn_solver solver)
{
	sn_world_def d = world->def;
	d.solver = solver;
	return apply_def(world, d);
}

sn_solver sn_world_get_solver(const sn_world* world)
{
	return world->def.solver;
}

sn_error sn_world_set_iterations(sn_world* world, int position_iterations, int velocity_iterations)
{
	sn_world_def d = world->def;
	d.position_iterations = position_iterations;
	d.velocity_iterations = velocity_iterations;
	return apply_def(world, d);
}

int sn_world_get_position_iterations(const sn_world* world)
{
	return world->def.position_iterations;
}

int sn_world_get_velocity_iterations(const sn_world* world)
{
	return world->def.velocity_iterations;
}

sn_error sn_world_set_substeps(sn_world* world, int substeps)
{
	sn_world_def d = world->def;
	d.substeps = substeps;
	return apply_def(world, d);
}

int sn_world_get_substeps(const sn_world* world)
{
	return world->def.substeps;
}

sn_error sn_world_set_erp(sn_world* world, double erp)
{
	sn_world_def d = world->def;
	d.erp = erp;
	return apply_def(world, d);
}

double sn_world_get_erp(const sn_world* world)
{
	return world->def.erp;
}

sn_error sn_world_set_implicit_factors(sn_world* world, double alpha, double beta)
{
	sn_world_def d = world->def;
	d.implicit_alpha = alpha;
	d.implicit_beta = beta;
	return apply_def(world, d);
}

sn_error sn_world_set_warm_start(sn_world* world, double warm_start)
{
	sn_world_def d = world->def;
	d.warm_start = warm_start;
	return apply_def(world, d);
}

double sn_world_get_warm_start(const sn_world* world)
{
	return world->def.warm_start;
}

sn_error sn_world_set_contact_settings(sn_world* world, sn_contact_settings settings)
{
	sn_world_def d = world->def;
	d.contact = settings;
	return apply_def(world, d);
}

sn_contact_settings sn_world_get_contact_settings(const sn_world* world)
{
	return world->def.contact;
}

sn_error sn_world_set_sleep_settings(sn_world* world, sn_sleep_settings settings)
{
	sn_world_def d = world->def;
	d.sleep = settings;
	sn_error err = apply_def(world, d);
	if (err == SN_ERR_OK && !settings.enabled)
	{
		island_wake_all(world); // nothing sleeps in a world that does not sleep
	}
	return err;
}

sn_sleep_settings sn_world_get_sleep_settings(const sn_world* world)
{
	return world->def.sleep;
}

double sn_world_get_implicit_alpha(const sn_world* world)
{
	return world->def.implicit_alpha;
}

double sn_world_get_implicit_beta(const sn_world* world)
{
	return world->def.implicit_beta;
}

sn_world_def sn_world_get_def(const sn_world* world)
{
	return world->def;
}

double sn_world_get_time(const sn_world* world)
{
	return world->time;
}

uint64_t sn_world_get_step_count(const sn_world* world)
{
	return world->step_count;
}

bool sn_world_is_diverged(const sn_world* world)
{
	return world->diverged;
}

static bool body_state_finite(const body* b)
{
	return sn_vec3_is_finite(b->com) && sn_quat_is_finite(b->q) && sn_vec3_is_finite(b->v) && sn_vec3_is_finite(b->w);
}

// A moving body faster than divergence_speed (m/s, or rad/s for its spin) counts as blown up.
static bool body_too_fast(const sn_world* world, const body* b)
{
	double limit = world->def.divergence_speed;
	return b->type != SN_BODY_STATIC && (sn_length(b->v) > limit || sn_length(b->w) > limit);
}

sn_error sn_world_clear_divergence(sn_world* world)
{
	for (int i = 0; i < world->body_high; ++i)
	{
		const body* b = world->bodies + i;
		if (b->type == SN_BODY_LINK)
		{
			continue; // checked with its articulation
		}
		if (b->live && !body_state_finite(b))
		{
			return world_fail(world, SN_ERR_NOT_FINITE, "body slot %d still has a non-finite state", i);
		}
		if (b->live && body_too_fast(world, b))
		{
			return world_fail(world, SN_ERR_DIVERGED, "body slot %d still moves faster than divergence_speed %g", i,
							  world->def.divergence_speed);
		}
	}
	for (int i = 0; i < world->joint_high; ++i)
	{
		const joint* j = world->joints + i;
		if (j->live && !joint_state_finite(world, j))
		{
			return world_fail(world, SN_ERR_NOT_FINITE, "joint slot %d still has a non-finite state", i);
		}
	}
	sn_error artic_state = artic_check_state(world, world->def.divergence_speed);
	if (artic_state != SN_ERR_OK)
	{
		return world_fail(world, artic_state,
						  artic_state == SN_ERR_NOT_FINITE
							  ? "an articulation still has a non-finite state"
							  : "an articulation still moves faster than divergence_speed");
	}
	world->diverged = false;
	return SN_ERR_OK;
}

sn_solver_stats sn_world_get_solver_stats(const sn_world* world)
{
	sn_solver_stats st;
	memset(&st, 0, sizeof(st));
	st.rows = world->row_count;
	const direct_state* d = &world->direct;
	st.direct_rounds = d->last_iterations;
	st.direct_dependent_rows = d->last_dependent;
	st.direct_graph_edges = d->analysed && d->node_count > 0 ? d->adj_ptr[d->node_count] / 2 : 0;
	st.direct_factor_blocks = d->analysed ? d->ldl.nnz : 0;
	st.direct_unsettled_steps = d->unconverged;
	if (world->artics != NULL)
	{
		st.artic_drive_path_windows = world->artics->path_windows;
		st.artic_drive_path_leaves = world->artics->path_leaves;
		st.artic_drive_path_dense = world->artics->path_dense;
		st.artic_structured_holds = world->artics->structured_holds;
		st.artic_midpoint_passes = world->artics->midpoint_passes;
	}
	return st;
}

const sn_joint_break_event* sn_world_get_break_events(const sn_world* world, int* count)
{
	if (count != NULL)
	{
		*count = world->break_count;
	}
	return world->break_events;
}

int sn_world_get_bodies(const sn_world* world, sn_body_id* ids, int capacity)
{
	int n = 0;
	for (int i = 0; i < world->body_high; ++i)
	{
		if (world->bodies[i].live && world->bodies[i].type != SN_BODY_LINK)
		{
			if (ids != NULL && n < capacity)
			{
				ids[n].index1 = i + 1;
				ids[n].generation = world_id_generation(world, world->bodies[i].generation);
			}
			n += 1;
		}
	}
	return n;
}

int sn_world_get_joints(const sn_world* world, sn_joint_id* ids, int capacity)
{
	int n = 0;
	for (int i = 0; i < world->joint_high; ++i)
	{
		if (world->joints[i].live)
		{
			if (ids != NULL && n < capacity)
			{
				ids[n] = joint_id_of(world, i);
			}
			n += 1;
		}
	}
	return n;
}

int sn_world_get_body_count(const sn_world* world)
{
	return world->body_count;
}

int sn_world_get_joint_count(const sn_world* world)
{
	return world->joint_count;
}

sn_memory_stats sn_world_get_memory_stats(const sn_world* world)
{
	return world->memory.stats;
}

static uint64_t hash_double(uint64_t h, double x)
{
	uint64_t bits;
	memcpy(&bits, &x, sizeof(bits));
	return hash_bytes(h, &bits, sizeof(bits));
}

static uint64_t hash_vec(uint64_t h, sn_vec3 v)
{
	return hash_double(hash_double(hash_double(h, v.x), v.y), v.z);
}

uint64_t sn_world_state_hash(const sn_world* world)
{
	uint64_t h = HASH_SEED;
	h = hash_double(h, world->time);
	for (int i = 0; i < world->body_high; ++i)
	{
		const body* b = world->bodies + i;
		if (!b->live || b->type == SN_BODY_LINK)
		{
			continue; // a link's state is its articulation's
		}
		h = hash_vec(h, b->com);
		h = hash_double(hash_double(hash_double(hash_double(h, b->q.x), b->q.y), b->q.z), b->q.w);
		h = hash_vec(hash_vec(h, b->v), b->w);
		if (world->def.sleep.enabled)
		{
			h = hash_bytes(h, &b->asleep, sizeof(b->asleep));
			h = hash_double(h, b->sleep_time);
		}
	}
	for (int i = 0; i < world->joint_high; ++i)
	{
		const joint* j = world->joints + i;
		if (!j->live)
		{
			continue;
		}
		for (int s = 0; s < JOINT_SLOTS; ++s)
		{
			h = hash_double(h, j->warm[s]);
		}
		h = hash_vec(hash_vec(h, j->force), j->torque);
		h = hash_bytes(h, &j->broken, sizeof(j->broken));
	}
	h = artic_state_hash(world, h);
	// Contacts (only when there are any, so that worlds without shapes hash as before).
	return contact_state_hash(world, h);
}

// Grow the step's scratch to the world's current size. Only allocates when the world grew; on failure
// the arrays keep their old (valid) contents and capacities.
static sn_error reserve_scratch(sn_world* world)
{
	sn_memory* m = &world->memory;
	int need_bodies = world->body_high + 1;
	void* p = world->solver_bodies;
	bool ok = memory_reserve(m, &p, &world->solver_body_capacity, need_bodies, sizeof(solver_body));
	world->solver_bodies = p;
	p = world->solver_infos;
	ok = ok && memory_reserve(m, &p, &world->solver_info_capacity, need_bodies, sizeof(solver_body_info));
	world->solver_infos = p;
	p = world->rows;
	ok = ok && memory_reserve(m, &p, &world->row_capacity, world->row_budget, sizeof(row));
	world->rows = p;
	p = world->blocks;
	ok = ok && memory_reserve(m, &p, &world->block_capacity, world->joint_count, sizeof(row_block));
	world->blocks = p;
	p = world->break_events;
	ok = ok && memory_reserve(m, &p, &world->break_capacity, world->joint_count, sizeof(sn_joint_break_event));
	world->break_events = p;
	ok = ok && island_reserve(world);
	// Joint rows on articulation links: their Jacobians over the slots (constraint/link_row.h).
	int64_t link_doubles = world->artics != NULL ? link_row_demand(world) : 0;
	if (ok && link_doubles > world->link_rows.capacity)
	{
		double* q = link_doubles <= INT32_MAX ? memory_alloc(m, (size_t)link_doubles * sizeof(double)) : NULL;
		ok = q != NULL;
		if (ok)
		{
			memory_free(m, world->link_rows.jac, (size_t)world->link_rows.capacity * sizeof(double));
			world->link_rows.jac = q;
			world->link_rows.capacity = link_doubles;
		}
	}
	return ok ? SN_ERR_OK : SN_ERR_NO_MEMORY;
}

// Forces out: the solver accumulated each joint's impulses over the step; divide by the step. Then
// break the joints whose force or torque exceeds their thresholds.
static void finish_joints(sn_world* world, double dt)
{
	world->break_count = 0;
	double inv_dt = 1.0 / dt;
	for (int i = 0; i < world->joint_high; ++i)
	{
		joint* j = world->joints + i;
		if (!j->live)
		{
			continue;
		}
		j->force = sn_scale(inv_dt, j->force);
		j->torque = sn_scale(inv_dt, j->torque);
		if (!j->enabled || j->broken)
		{
			continue;
		}
		if (sn_length(j->force) > j->break_force || sn_length(j->torque) > j->break_torque)
		{
			j->broken = true;
			sn_joint_break_event* e = world->break_events + world->break_count++;
			e->joint = joint_id_of(world, i);
			e->force = j->force;
			e->torque = j->torque;
			e->time = world->time;
			e->user_data = j->user_data;
			memset(j->warm, 0, sizeof(j->warm));
		}
	}
}

static bool check_divergence(sn_world* world)
{
	// Links are checked with their articulations: a world of articulations alone has no body to visit.
	for (int i = 0; world->body_count > 0 && i < world->body_high; ++i)
	{
		const body* b = world->bodies + i;
		if (!b->live || b->type == SN_BODY_STATIC || b->type == SN_BODY_LINK)
		{
			continue;
		}
		if (!body_state_finite(b) || body_too_fast(world, b))
		{
			return true;
		}
	}
	for (int i = 0; i < world->joint_high; ++i)
	{
		const joint* j = world->joints + i;
		if (j->live && !joint_state_finite(world, j))
		{
			return true;
		}
	}
	return artic_diverged(world, world->def.divergence_speed);
}

// The step itself, with the articulations' temporaries bound (sn_world_step_with).
static sn_error step(sn_world* world)
{
	sn_error err = reserve_scratch(world);
	if (err != SN_ERR_OK)
	{
		return world_fail(world, err, "could not grow the step's scratch memory");
	}
	err = solver_prepare(world);
	if (err != SN_ERR_OK)
	{
		return world_fail(world, err, "could not grow the %s solver's scratch memory",
						  sn_solver_name(world->def.solver));
	}
	double dt = world->def.time_step;
	// Collision detection at the poses the step starts from (contact/update.c): everything it allocates
	// first, then the pair cache, manifolds and events, which nothing after this point can fail.
	err = contact_prepare(world, dt);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	contact_update(world, dt);
	// Sleeping islands that an awake body began or stopped touching wake for this step (island.c).
	if (world->def.sleep.enabled)
	{
		island_wake_touched(world);
	}
	// XPBD and DIRECT: the articulations' islands go to the articulations' TGS path (island.c).
	island_mark_articulated(world);
	contact_solver_build(world, dt);
	int substeps = world->def.substeps;
	double h = dt / substeps;
	solver_begin_step(world);
	artic_step_begin(world);
	for (int s = 0; s < substeps; ++s)
	{
		solver_substep(world, h);
	}
	contact_solver_store(world);
	world->time += dt;
	world->step_count += 1;
	finish_joints(world, dt);
	artic_step_end(world, dt);
	solver_end_step(world, dt);
	island_update(world, dt);
	world->contacts.proxies_stale = true;
	if (check_divergence(world))
	{
		world->diverged = true;
		return world_fail(world, SN_ERR_DIVERGED, "state became non-finite or exceeded %g m/s at t = %.17g s",
						  world->def.divergence_speed, world->time);
	}
	return SN_ERR_OK;
}

bool world_bind_scratch(sn_world* world, sn_step_scratch* lent)
{
	const size_t need = artic_scratch_demand(world);
	sn_memory* memory = lent != NULL ? &lent->memory : &world->memory;
	scratch_block* block = lent != NULL ? &lent->block : &world->scratch;
	if (!scratch_block_reserve(memory, block, need))
	{
		return false;
	}
	artic_scratch_bind(world, block->base);
	return true;
}

// The ranges a step touches outside the step's scratch, in order of need: the world's record, the
// articulation and mimic records, the hot part of each articulation's block (artic/store.c,
// layout_artic) and the free bodies; with collision shapes or joints on links, whole blocks and every body.
static void plan_prefetch(sn_world* world)
{
	int n = 0;
	size_t budget = SN_WORLD_PREFETCH_MAX_BYTES;
#define PLAN(pointer, size)                                                                                            \
	do                                                                                                                 \
	{                                                                                                                  \
		size_t want_ = (size);                                                                                         \
		if (n < WORLD_PREFETCH_RANGES && budget > 0 && (pointer) != NULL && want_ > 0)                                 \
		{                                                                                                              \
			world->prefetch[n].start = (uintptr_t)(const void*)(pointer);                                              \
			world->prefetch[n].bytes = want_ < budget ? want_ : budget;                                                \
			budget -= world->prefetch[n].bytes;                                                                        \
			n += 1;                                                                                                    \
		}                                                                                                              \
	} while (0)
	// The collision stage reads every body slot and, for each articulation, its links' bodies and frames
	// (info); so do joints on links.
	const bool collides = world->contacts.shape_count > 0 || world->link_rows.joints > 0;
	PLAN(world, sizeof(*world));
	const artic_store* s = world->artics;
	if (s != NULL)
	{
		PLAN(s->items, (size_t)s->high * sizeof(artic));
		if (s->mimic_count > 0)
		{
			PLAN(s->mimics, (size_t)s->mimic_high * sizeof(artic_mimic));
		}
		for (int i = 0; i < s->high; ++i)
		{
			const artic* a = s->items + i;
			if (a->live)
			{
				PLAN(a->block, collides ? a->block_size : a->block_hot);
			}
		}
	}
	// Bodies: free ones (body_count does not count the links' bodies), or any, for collision.
	if (world->body_count > 0 || collides)
	{
		PLAN(world->bodies, (size_t)world->body_high * sizeof(body));
	}
#undef PLAN
	world->prefetch_count = n;
}

sn_error sn_world_step_with(sn_world* world, sn_step_scratch* scratch)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (world->diverged)
	{
		return world_fail(world, SN_ERR_DIVERGED, "world diverged at t = %.17g s; reset or restore it", world->time);
	}
	if (!world_bind_scratch(world, scratch))
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "could not grow the step's scratch memory to %zu bytes",
						  artic_scratch_demand(world));
	}
	sn_error err = step(world);
	artic_scratch_unbind(world);
	plan_prefetch(world);
	return err;
}

sn_error sn_world_step(sn_world* world)
{
	return sn_world_step_with(world, NULL);
}

void sn_world_prefetch(const sn_world* world)
{
	if (world == NULL)
	{
		return;
	}
	for (int i = 0; i < world->prefetch_count; ++i)
	{
		const unsigned char* p = (const unsigned char*)world->prefetch[i].start;
		// One request per 64 bytes, the line size of the machines Sinew targets (with longer lines some
		// are asked for twice). For writing: a step writes most of what it reads.
		for (size_t offset = 0; offset < world->prefetch[i].bytes; offset += 64)
		{
			__builtin_prefetch(p + offset, 1, 3);
		}
	}
}
