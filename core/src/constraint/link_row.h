// Rows of maximal-coordinate joints whose side is an articulation link (a body jointed to a robot's
// link, two links of different articulations, or a loop closed within one): the link's part of the
// row, as the contact rows on links (contact/solver.c) have it.
//
// A row (constraint/row.h) applies the impulse P as lin P at B's centre of mass and ang_b P about it, and
// -lin P, ang_a P on A. On a link this is the spatial impulse, about the articulation solve's point O,
//   j_B = (ang_b + (c_B - O) x lin, lin),   j_A = (ang_a - (c_A - O) x lin, -lin),
// whose Jacobian over the articulation's active slots is J_s = S_s . j (artic_contact_jacobian) and whose
// response is W J^T (artic_contact_response). The row's rate gains J v over the slots, its inverse
// effective mass J W J^T, two rows of one joint the coupling J_i W J_j^T, and its error in a TGS window
// the displacement J dx of the slots since the start of the solve. The link's slots are the solve's:
// the rows are built after artic_solve_begin, with the links marked beforehand (joint_mark_links).
#ifndef SINEW_LINK_ROW_H
#define SINEW_LINK_ROW_H

#include "constraint/row.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct sn_world sn_world;

// The link sides of a joint for its rows: articulation and link per side (-1: none), the link's centre of
// mass (world, m).
typedef struct link_row_sides
{
	int32_t artic[2], link[2];
	sn_vec3 com[2];
} link_row_sides;

// Whether a body slot is a link, and its sides record.
bool link_row_sides_of(const sn_world* world, int32_t body_a, int32_t body_b, link_row_sides* out);
// Fill a new row's link parts (J, W J^T into the scratch) and add its link share to r->k. Returns false
// if the scratch is full (the row is then left inert by the caller).
bool link_row_prepare(sn_world* world, const link_row_sides* sides, row* r);
// The link sides' part of the row's rate (pseudo: of the pseudo speeds).
double link_row_cdot(const sn_world* world, const row* r, bool pseudo);
// Apply impulse p to the link sides (pseudo: to the pseudo speeds).
void link_row_apply(sn_world* world, const row* r, double p, bool pseudo);
// J dx of the link sides: their displacement along the row since the start of the solve.
double link_row_displacement(const sn_world* world, const row* r);
// The link sides' part of J_i M^-1 J_j^T for two rows of one joint.
double link_row_coupling(const sn_world* world, const row* ri, const row* rj);
// Mark the links that joints hold for the articulations' next solve.
void joint_mark_links(sn_world* world);
// The scratch doubles the link rows of every joint may need in a solve.
int64_t link_row_demand(sn_world* world);

#endif
