// The DIRECT world solver (Faure's SOFA compliant plugin): each step, the compliant system of every joint
// row solved exactly with a sparse LDL^T (sparse_ldl.h) and an active set for bounded rows. Derivation in
// direct.c.
#ifndef SINEW_DIRECT_H
#define SINEW_DIRECT_H

#include "solver/sparse_ldl.h"

#include "sinew/types.h"

typedef struct sn_world sn_world;

typedef struct direct_state
{
	sparse_ldl ldl;
	bool analysed; // ldl holds the analysis of the graph below
	// The joint graph of the analysis: a node per active joint in creation order.
	int node_count;
	int node_capacity;
	int* node_joint; // [node] joint index
	int* node_body;  // [2 node] body slots of its dynamic bodies, -1 for the world or others
	int* caps;       // [node] the joint's most rows
	int* adj_ptr;    // [node + 1] adjacency (CSR)
	int* adj;
	int adj_capacity;
	int* body_ptr; // [body slot + 1] nodes at each dynamic body (CSR)
	int body_ptr_capacity;
	int* body_nodes;
	int body_nodes_capacity;
	int* mark;         // [node]
	int* loop_scratch; // finding the joints on loops (direct.c, mark_loops)
	int loop_scratch_capacity;
	// Per step.
	int* node_row_first; // [node] its first row in the world's rows
	int* node_row_count;
	int* dims;     // [node] free rows in the current factorisation
	double* floor; // [node] pivot floor: LOOP_PIVOT_FLOOR for joints on a loop, else 0
	sn_vec3* v0;   // [slot] velocities at the step's start
	sn_vec3* w0;
	sn_vec3* vf; // [slot] velocities after the free (unconstrained) update
	sn_vec3* wf;
	int slot_capacity;
	double* target;     // [row] t: J v_{n+1} + D P = t
	double* compliance; // [row] D
	double* impulse;    // [row] P, N*s
	double* x;          // [row] the system vector
	int* sys;           // [row] index in the system vector, -1 when clamped
	uint8_t* state;     // [row] free, at its lower or at its upper bound
	int row_capacity;
	// Last step.
	int last_iterations;
	int last_dependent; // rows found dependent in the last factorisation
	uint64_t unconverged;
} direct_state;

// Grow the scratch and redo the analysis if the joint graph changed (before a step; nothing changes
// on failure).
sn_error direct_prepare(sn_world* world);
void direct_release(sn_world* world);
// One step of length h.
void direct_substep(sn_world* world, double h);

#endif
