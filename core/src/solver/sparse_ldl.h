// Sparse block LDL^T of a symmetric positive semi-definite matrix whose nonzero blocks follow a graph
// of nodes (the DIRECT solver: one node per joint, an edge where two joints share a dynamic body).
// The derivation, the elimination order and the handling of dependent rows are at the top of
// sparse_ldl.c.
//
// Use: sparse_ldl_analyse once per graph (allocates), then per system: sparse_ldl_begin with the rows
// of each node, sparse_ldl_add for each block, sparse_ldl_factor, sparse_ldl_solve (no allocation).
#ifndef SINEW_SPARSE_LDL_H
#define SINEW_SPARSE_LDL_H

#include "alloc.h"

#include <stdbool.h>

typedef struct sparse_ldl
{
	int n;       // nodes
	int nnz;     // off-diagonal blocks of L
	int size;    // rows of the current system
	int dropped; // rows found dependent by the last factorisation (their multiplier is 0)
	int floored; // rows whose pivot the last factorisation raised to its floor
	// Analysis, by node (original numbering) or by position (elimination order).
	int* order;   // [n] the node eliminated at each position
	int* pos;     // [n] the position of each node
	int* cap;     // [n] the most rows a node may have, by node
	int* col_ptr; // [n + 1] by position: column k of L has blocks col_idx[col_ptr[k] .. col_ptr[k + 1])
	int* col_idx; // [nnz] positions of those blocks' rows, ascending, all > k
	// Numeric, set by sparse_ldl_begin.
	int* dim;      // [n] rows of each node
	int* row_off;  // [n + 1] by node: the node's rows in the system vector
	int* diag_off; // [n] by position: value offset of the diagonal block (dim x dim, row-major)
	int* blk_off;  // [nnz] value offset of block (col_idx[e], k): dim(row node) x dim(column node)
	double* val;   // the blocks; L (unit lower) after factorisation
	double* piv;   // [size] by system row: the pivots d (0 for dependent rows)
	double* orig;  // [size] the diagonal before factorisation (reference for dropping)
	int* where;    // [n] scatter map
	double* work;  // one column's blocks scaled by its pivots (L_ik d)
	// Capacities and the analysis scratch (kept to avoid allocating again).
	int* node_block; // the per-node arrays above and below, in one allocation
	int n_capacity, nnz_capacity, blk_capacity, val_capacity, piv_capacity, orig_capacity, work_capacity;
	int* list_start; // [n] elimination graph: a node's live neighbours in pool
	int* list_len;
	int* list_cap;
	int* pool;
	int pool_capacity;
	int* head; // [n + 1] degree buckets
	int* next;
	int* prev;
	int* mark;
} sparse_ldl;

// Order the n nodes by minimum degree on their graph (adjacency in CSR form, symmetric, no self
// loops) and find the block structure of L. cap[i] bounds node i's rows. False on out of memory (the
// previous analysis is then lost: analyse again before factorising).
bool sparse_ldl_analyse(sparse_ldl* s, sn_memory* memory, int n, const int* adj_ptr, const int* adj, const int* cap);
void sparse_ldl_release(sparse_ldl* s, sn_memory* memory);

// Start a system with dims[i] <= cap[i] rows for node i: lays out the blocks and zeroes them. Returns
// the system size (the sum of dims).
int sparse_ldl_begin(sparse_ldl* s, const int* dims);
// Add a dense block (dims[i] x dims[j], row-major) to the matrix at nodes (i, j): i == j, or two nodes
// adjacent in the analysed graph. The symmetric block (j, i) is implied.
void sparse_ldl_add(sparse_ldl* s, int i, int j, const double* block);
// Factorise in place. A row whose pivot falls below drop_tol times its original diagonal is dependent
// on the rows before it: its pivot is set to zero. A pivot below floor_tol[node] times it (a row nearly
// dependent; floor_tol may be NULL for none) is raised to that floor. Returns the dependent rows.
int sparse_ldl_factor(sparse_ldl* s, double drop_tol, const double* floor_tol);
// Solve in place; x has the system's rows in node order (row_off).
void sparse_ldl_solve(const sparse_ldl* s, double* x);

#endif
