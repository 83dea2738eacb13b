// Internal rigid body record. Hot solver state is copied into solver_body arrays for each step.
#ifndef SINEW_BODY_INTERNAL_H
#define SINEW_BODY_INTERNAL_H

#include "sinew/types.h"

typedef struct sn_world sn_world;

typedef struct body
{
	uint32_t generation; // changes when the slot is freed
	int32_t next_free;   // free-list link while dead
	bool live;
	sn_body_type type;
	double mass, inv_mass;  // kg, 1/kg (0 for static and kinematic bodies)
	sn_mat33 inertia;       // about the centre of mass, body axes, kg*m^2
	sn_mat33 inv_inertia;   // body axes (zero for static and kinematic bodies)
	sn_vec3 local_com;      // centre of mass in the body frame, m
	double linear_damping;  // 1/s
	double angular_damping; // 1/s
	double gravity_scale;
	sn_vec3 com;           // world centre of mass, m
	sn_quat q;             // orientation of the body frame
	sn_vec3 v, w;          // m/s, rad/s (world)
	sn_vec3 force, torque; // accumulated for the next step, N and N*m about the centre of mass
	int32_t solver_index;  // scratch: index into the step's solver bodies (0 for static)
	uint64_t user_data;
	int32_t artic;        // SN_BODY_LINK: the articulation's slot (the link's state lives there)
	int32_t link;         // SN_BODY_LINK: the link's index
	int32_t shape_head;   // first shape (shape.c), -1 if none
	bool moved;           // posed by a setter since the last collision update (static bodies' shapes follow)
	bool asleep;          // dynamic bodies: its island sleeps (island.c)
	double sleep_time;    // s the body has moved slower than the sleep thresholds
	int32_t sleep_group;  // while asleep: the island it sleeps with (woken together), else -1
	sn_vec3 solve_dp;     // displacement of the centre of mass since the current solve began (TGS windows), m
	sn_vec3 solve_dtheta; // rotation vector summed over the solve's windows (w h each), rad
	bool articulated;     // XPBD and DIRECT worlds: in an island with an articulation this step, which the
						  // articulations' TGS path solves whole (island.c island_mark_articulated)
} body;

// Where a body is and how it moves now: its frame's pose, centre of mass (world, m), velocity of the centre
// of mass (m/s) and angular velocity (rad/s). A link's comes from its articulation; the world (-1) is at
// rest at the identity.
typedef struct body_motion
{
	sn_transform pose;
	sn_vec3 com;
	sn_vec3 v, w;
} body_motion;

// The body at a valid id, or NULL.
body* body_get(const sn_world* world, sn_body_id id);
// Solver body index of a body slot, or 0 for the world (index -1) and static bodies.
int32_t body_solver_index(const sn_world* world, int32_t body_index);
// World-frame inverse inertia.
sn_mat33 body_inv_inertia_world(const body* b);
// Pose of the body frame.
sn_transform body_pose(const body* b);
// Velocities of a dynamic body after h: scaled gravity, applied force and torque, implicit gyroscopic
// torque (one Newton step, derived in body.c) and damping. Every maximal-coordinate solver integrates
// with it (solver/pgs_tgs.c, solver/xpbd.c, solver/direct.c).
void body_integrate_velocity(const body* b, sn_vec3 gravity, double h, sn_vec3* v, sn_vec3* w);
// Solver body slots for a (sub)step: slot 0 is the static ground; every non-static body gets a slot with
// its velocities, inverse mass and world inverse inertia, and its solver_index. Every maximal-coordinate
// solver lays its bodies out with it, so rows (constraint/row.h) index the same arrays in each.
void body_prepare_solver_slots(sn_world* world);
// Copy the solver slots' velocities back into the dynamic bodies.
void body_store_solver_velocities(sn_world* world);

body_motion body_motion_of(const sn_world* world, int32_t index);
// Whether a body type moves under dynamics (a dynamic body or a link): the side a contact needs.
static inline bool body_type_is_dynamic(sn_body_type type)
{
	return type == SN_BODY_DYNAMIC || type == SN_BODY_LINK;
}
// The id of a body slot.
sn_body_id body_id_of(const sn_world* world, int32_t index);

// Link bodies (articulation creation and destruction, artic/store.c; snapshots). Reserve room for count
// more bodies so that creating them cannot fail (SN_ERR_NO_MEMORY changes nothing).
sn_error body_reserve(sn_world* world, int count);
// One body per link of the articulation in slot artic_index, into link_body[link]; room was reserved.
void body_create_links(sn_world* world, int32_t artic_index, int link_count, int32_t* link_body);
// Destroy the bodies of an articulation's links (and their shapes).
void body_destroy_links(sn_world* world, int link_count, const int32_t* link_body);

#endif
