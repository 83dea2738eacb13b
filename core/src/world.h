// Internal world record: pools of bodies and joints, settings, per-step scratch, events.
#ifndef SINEW_WORLD_INTERNAL_H
#define SINEW_WORLD_INTERNAL_H

#include "alloc.h"
#include "solver/direct.h"
#include "body.h"
#include "contact/contact.h"
#include "contact/solver.h"
#include "joint/joint.h"
#include "scratch.h"
#include "constraint/row.h"
#include "solver/xpbd.h"

#include "sinew/world.h"

#include <stdarg.h>

struct artic_store;

typedef struct solver_body_info
{
	int32_t body; // body index
	double inv_mass;
	sn_mat33 inv_inertia; // world frame at the start of the (sub)step
	sn_vec3 v_ref, w_ref; // the link-contact pass of XPBD and DIRECT worlds: velocities it started from
} solver_body_info;

enum
{
	WORLD_PREFETCH_RANGES = 6
};

struct sn_world
{
	// Where the next step's memory lies, for sn_world_prefetch: planned at the end of each step (world.c),
	// and first in the record, so that what a prefetch must read before it can ask for the rest lies in
	// the record's first WORLD_PREFETCH_HEAD bytes (which a caller may ask for ahead: sinew/world.h). Kept
	// as addresses, not pointers: a range that a later change made stale is only a wasted hint (a
	// prefetch never faults) until the next step plans again.
	int prefetch_count;
	struct
	{
		uintptr_t start;
		size_t bytes;
	} prefetch[WORLD_PREFETCH_RANGES];

	sn_world_def def;
	sn_memory memory;

	body* bodies;
	int body_capacity;
	int body_high;     // slots in use or freed (next fresh slot)
	int body_count;    // live, not counting the bodies of articulation links
	int32_t body_free; // free-list head, -1 if none

	joint* joints;
	int joint_capacity;
	int joint_high;
	int joint_count;
	int32_t joint_free;
	int row_budget; // sum over live joints of their maximum rows

	// Per-step scratch. Grown at the start of a step only when the world grew.
	solver_body* solver_bodies;
	solver_body_info* solver_infos;
	int solver_body_capacity;
	int solver_info_capacity;
	int solver_count; // including the ground at index 0
	row* rows;
	int row_capacity;
	int row_count;
	row_block* blocks;
	int block_capacity;
	int block_count;

	// The step's own scratch for the articulations' temporaries (scratch.h), when none is lent.
	scratch_block scratch;

	// Scratch of the XPBD solver (solver/xpbd.c) and the DIRECT solver's factorisation (solver/direct.c).
	xpbd_state xpbd;
	direct_state direct;
	// Articulations and mimic joints (artic/artic.h); NULL until the first articulation is created.
	struct artic_store* artics;
	// Shapes, the broadphase, the pair cache with its manifolds, filtering, events (contact/contact.h).
	contact_state contacts;
	// The step's contact constraints (contact/solver.h).
	contact_solver contact_solver;
	// The island pass's scratch (island.c): union-find parents, rest times and kept flags per node.
	struct
	{
		int32_t* parent;
		double* rest;
		uint8_t* keep;
		int capacity;
		bool marked; // island_mark_articulated set marks that must be cleared
	} islands;
	// Joint rows on articulation links: their J and W J^T (constraint/link_row.h), rebuilt with the rows.
	struct
	{
		double* jac;
		int64_t used, capacity;
		int joints; // live joints with a link side (counted when the scratch is reserved)
	} link_rows;

	sn_joint_break_event* break_events;
	int break_capacity;
	int break_count;

	// XPBD and DIRECT worlds with articulations: which bodies the solver slots take (body.c): every one
	// (SUBSET_ALL), those outside the articulations' islands (SUBSET_MAXIMAL, the world's own solver) or
	// those in them (SUBSET_ARTICULATED, the articulations' TGS path).
	int solver_subset;

	double time;
	uint64_t step_count;
	bool diverged;

	char error_detail[256];
};
_Static_assert(offsetof(struct sn_world, prefetch) + sizeof(((struct sn_world*)NULL)->prefetch) <=
				   SN_WORLD_PREFETCH_HEAD,
			   "the prefetch plan lies in the head of the world's record that sinew/world.h names");

enum
{
	SUBSET_ALL = 0,
	SUBSET_MAXIMAL = 1,
	SUBSET_ARTICULATED = 2,
};

// The generation an id carries for a slot generation: mixed with the world's id tag (murmur3's
// finaliser, so nearby tags give unrelated masks).
static inline uint32_t world_id_generation(const sn_world* world, uint32_t slot_generation)
{
	uint32_t h = world->def.id_tag;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return slot_generation ^ h;
}

// Point the articulations' temporaries into the lent scratch, or the world's own (NULL), grown to what they
// need; false (nothing bound) if it could not grow. artic_scratch_unbind undoes it.
bool world_bind_scratch(sn_world* world, sn_step_scratch* lent);

// Record a failure's detail line and return the error.
sn_error world_fail(sn_world* world, sn_error error, const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

#endif
