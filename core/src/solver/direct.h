// The DIRECT world solver (Faure's SOFA compliant plugin): each step, the compliant system of every joint
// row and every contact row between bodies solved exactly with a sparse LDL^T (sparse_ldl.h) and an
// active set for bounded rows. Derivation in direct.c; contacts and their friction in direct_contacts.c.
#ifndef SINEW_DIRECT_H
#define SINEW_DIRECT_H

#include "constraint/row.h"
#include "solver/sparse_ldl.h"

#include "sinew/types.h"

typedef struct sn_world sn_world;
struct contact_solver_point;

// Where a row stands in the active set.
enum
{
	ROW_FREE = 0,    // an equation of the factorised system
	ROW_AT_LO = 1,   // held at its lower bound
	ROW_AT_HI = 2,   // held at its upper bound
	ROW_PINNED = 3,  // exerts nothing, never free: a soft row without spring, friction without mu or push
	ROW_SLIDING = 4, // a sliding contact's friction row: held at the impulse in direct_state.fixed
};

// A contact point of the DIRECT solve: rows 3 k (normal), 3 k + 1 and 3 k + 2 (friction along the
// constraint's tangents) after the joints' rows.
typedef struct direct_point
{
	struct contact_solver_point* sp; // its point in the contact solver (impulses out, warm starts in)
	double friction;                 // mixed coefficient
	double restitution;              // mixed coefficient
	double vn0;                      // normal speed at the (sub)step's start, m/s (restitution)
	double push;                     // penetration beyond the slop to remove (split impulse), m/s
	double dir[2];                   // sliding: the friction impulse's unit direction in (t1, t2)
	bool restituted;                 // its normal row aims at -e vn0
} direct_point;

typedef struct direct_state
{
	sparse_ldl ldl;
	bool analysed; // ldl holds the analysis of the graph below
	// The graph of the analysis: a node per active joint in creation order, then a node per pair of
	// shapes the contacts of this solver may join (direct_contacts.c), by pair key.
	int node_count;
	int joint_nodes; // nodes [0, joint_nodes) are joints
	int node_capacity;
	int* node_joint;    // [node] joint index (-1 for a contact node)
	uint64_t* node_key; // [node] a contact node's pair key (contact_pair_key)
	int* node_body;     // [2 node] body slots of its dynamic bodies, -1 for the world or others
	int* caps;          // [node] its most rows
	int* adj_ptr;       // [node + 1] adjacency (CSR)
	int* adj;
	int adj_capacity;
	int* body_ptr; // [body slot + 1] nodes at each dynamic body (CSR)
	int body_ptr_capacity;
	int* body_nodes;
	int body_nodes_capacity;
	int* mark;         // [node]
	int* loop_scratch; // finding the joints on loops (direct.c, mark_loops)
	int loop_scratch_capacity;
	int contact_caps;  // the contact nodes' rows at most
	uint64_t analyses; // orderings computed (when joints or pairs of shapes came or went)
	// Per step.
	int* node_row_first; // [node] its first row in rows
	int* node_row_count;
	int* dims;     // [node] free rows in the current factorisation
	double* floor; // [node] pivot floor: LOOP_PIVOT_FLOOR for joints on a loop, else 0
	sn_vec3* v0;   // [slot] velocities at the step's start
	sn_vec3* w0;
	sn_vec3* vf; // [slot] velocities after the free (unconstrained) update
	sn_vec3* wf;
	int slot_capacity;
	row* rows;     // [row] the joints' rows (world->row_count), then the contacts' (contact_row_first)
	int row_count; // both
	int contact_row_first;
	double* target;      // [row] t: J v_{n+1} + D P = t
	double* compliance;  // [row] D
	double* refine;      // [row] the part of D that only regularises the row, taken back by refinement
	double creep;        // the largest speed the regularisation still gives a row after the last solve, m/s
	double* impulse;     // [row] P, N*s
	double* fixed;       // [row] the impulse of a ROW_SLIDING row; a free row's refinement centre, N*s
	double* x;           // [row] the system vector
	int* sys;            // [row] index in the system vector, -1 when clamped
	uint8_t* state;      // [row] ROW_FREE ...
	uint8_t* best_state; // [row] the states of the round with the fewest offending rows
	double* best_fixed;  // [row] its sliding impulses
	int row_capacity;
	direct_point* points; // [point] the contact points of the step, in constraint order
	int point_count;
	int point_capacity;
	// Last step.
	int last_iterations;
	int last_dependent; // rows found dependent in the last factorisation
	uint64_t unconverged;
	int last_solves;            // back-substitutions of the last step (rounds, sliding friction, refinement)
	double last_projection;     // the largest impulse change of the contacts' final projection, N*s
	uint64_t slide_unconverged; // solves whose sliding friction's fixed point stopped at its limit
} direct_state;

// J_r v for velocities by solver slot.
static inline double direct_row_rate(const row* r, const sn_vec3* v, const sn_vec3* w)
{
	return sn_dot(r->lin, sn_sub(v[r->b], v[r->a])) + sn_dot(r->ang_a, w[r->a]) + sn_dot(r->ang_b, w[r->b]);
}

// Grow the scratch that depends on the bodies (before a step; nothing changes on failure).
sn_error direct_prepare(sn_world* world);
// Compare the graph of the active joints and of the pairs the contacts may join this step (the pair
// cache and the candidates, contact/update.c's contact_prepare calls it once they are known) with the
// analysed one; analyse it again if it changed and grow the per-step arrays (nothing observable changes
// on failure).
sn_error direct_prepare_graph(sn_world* world);
void direct_release(sn_world* world);
// One step of length h.
void direct_substep(sn_world* world, double h);

// ---- contacts (direct_contacts.c) ------------------------------------------------------------------------

// The round-off of contact impulses relative to the largest impulse: 1e-16 amplified by the condition
// of the regularised contact rows (1e6, direct_contacts.c), with a margin of 100.
#define DIRECT_CONTACT_ROUNDING 1e-8

// Whether the pair of shapes (slots) is a contact node of the graph, and its node's dynamic bodies and
// most rows.
bool direct_contact_node(const sn_world* world, int32_t shape_a, int32_t shape_b, int ends[2], int* cap);
// The contact rows after the joints' (from d->row_count on), each pair node's together, with targets,
// compliances and starting states (after the free update).
void direct_contacts_build(sn_world* world, double h);
// The sliding points' friction impulses from the last solve's normal impulses and slip directions (tol_v
// and scale_p as below). Returns whether one changed by more than round-off (solve again).
bool direct_contacts_slide(sn_world* world, double tol_v, double scale_p);
// The friction rows' part of the active set (sticking or sliding); counts the points whose state
// changes into *offending and changes them while *offending stays within `limit`; `frozen` keeps every
// point sticking or sliding as it is (friction then follows its normal only). tol_v is the round-off of
// speeds, scale_p the largest impulse.
void direct_contacts_update(sn_world* world, int limit, bool frozen, double tol_v, double scale_p, int* offending);
// Restitution for points that push now and approached fast. Returns the rows whose target changed;
// *refactor is set when a row's compliance changed too.
int direct_contacts_restitution(sn_world* world, double scale_p, bool* refactor);
// Rigid normal rows that fight other rigid rows (targets no motion meets: a contact between bodies that
// joints hold, one of them correcting its error): their regularisation yields more than `creep`, m/s.
// Each becomes compliant for the step, D = K (it yields like its own effective mass), which bounds what
// it exerts. Returns the rows changed (the matrix changes).
int direct_contacts_conflicts(sn_world* world, double creep);
// The penetration corrections' targets of the free normal rows into b (by system index; b holds zeros).
// Returns whether a point needs one.
bool direct_contacts_push_targets(sn_world* world, double* b);
// The bounds exactly: P_n >= 0 and |P_t| <= mu P_n for every point. Returns whether an impulse moved.
bool direct_contacts_project(sn_world* world);
// The substep's impulses into the contact solver's points (step totals, warm starts).
void direct_contacts_store(sn_world* world, double h);

#endif
