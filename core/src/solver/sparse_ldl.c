// Sparse block LDL^T for the DIRECT solver's Schur complement A = J M^-1 J^T + D (D >= 0 diagonal).
//
// Structure. Row r of J touches the two bodies of its joint, so A_rs = J_r M^-1 J_s^T is nonzero only
// when rows r and s share a dynamic body: A is block-sparse over the joint graph (a node per joint, an
// edge where two joints share a dynamic body). Eliminating node k (block Gaussian elimination) couples
// every pair of its remaining neighbours; those new blocks are the fill. Baraff 1996 ("Linear-Time
// Dynamics using Lagrange Multipliers") gives the linear-time method for tree-shaped joint graphs: in a
// tree every body's joints already form a clique of A's graph and the graph is chordal, so eliminating
// leaves first creates no fill at all and the factorisation costs O(n) blocks (a chain is
// block-tridiagonal). A graph with loops (a grid of bodies joined by hinges) must fill in; the amount
// depends on the order. We order by minimum degree on the elimination graph (eliminate the node with
// the fewest live neighbours, connect its neighbours, repeat; ties by the most recently touched node,
// deterministic), which eliminates a tree leaf-first and keeps a grid's fill near nested dissection's.
// The order and the structure of L (the neighbour set of each node when it is eliminated, which is
// exactly its column of L) are computed once per graph, when the topology changes, not per step.
//
// Factorisation (right-looking, blocks of up to 25 rows, dense within a block):
//   for each position k:  A_kk = L_kk d_k L_kk^T (dense LDL^T of the diagonal block)
//                         L_ik = A_ik L_kk^-T d_k^-1            for each i in struct(k)
//                         A_ij -= L_ik d_k L_jk^T               for each i >= j in struct(k)
// The update target (i, j) is in column j by the fill path property (struct(k) minus j lies in
// struct(j)); a scatter map finds it.
//
// Dependent rows. Loops of joints whose axes are parallel (a planar grid of hinges) repeat constraints:
// J loses rank and A is singular. In exact arithmetic a dependent row's pivot is zero and so is the rest
// of its column in the Schur complement, so setting d_j = 0 and its column of L to zero and taking its
// multiplier as 0 still solves the consistent system exactly; the rows kept carry the load. In floating
// point such a pivot is round-off, ~1e-16 of the row's original diagonal; a pivot below drop_tol times
// that diagonal is treated as zero. Compliant rows (D > 0) never drop. A caller may also give each node
// a floor: a pivot above the drop tolerance but below floor times its diagonal (a row nearly dependent)
// is raised to the floor, which bounds what such a row can amplify (direct.c uses it on loops).
//
// Solve: L y = b (block forward), z = d^+ y, L^T x = z (block backward).
#include "solver/sparse_ldl.h"

#include <string.h>

// ---- analysis ----------------------------------------------------------------------------------------

static bool reserve_int(sn_memory* m, int** p, int* capacity, int needed)
{
	void* v = *p;
	bool ok = memory_reserve(m, &v, capacity, needed, sizeof(int));
	*p = v;
	return ok;
}

static bool reserve_double(sn_memory* m, double** p, int* capacity, int needed)
{
	void* v = *p;
	bool ok = memory_reserve(m, &v, capacity, needed, sizeof(double));
	*p = v;
	return ok;
}

// The per-node arrays live in one block, so growing them either succeeds whole or changes nothing.
enum
{
	NODE_FIELDS = 15
};

static int** node_field(sparse_ldl* s, int f)
{
	int** fields[NODE_FIELDS] = { &s->order,    &s->pos,      &s->cap,   &s->col_ptr,    &s->dim,
								  &s->row_off,  &s->diag_off, &s->where, &s->list_start, &s->list_len,
								  &s->list_cap, &s->head,     &s->next,  &s->prev,       &s->mark };
	return fields[f];
}

static bool reserve_node_arrays(sparse_ldl* s, sn_memory* m, int n)
{
	if (n <= s->n_capacity && s->node_block != NULL)
	{
		return true;
	}
	int cap = n > 2 * s->n_capacity ? n : 2 * s->n_capacity;
	size_t stride = (size_t)cap + 1;
	int* block = memory_alloc(m, NODE_FIELDS * stride * sizeof(int));
	if (block == NULL)
	{
		return false;
	}
	memory_free(m, s->node_block, NODE_FIELDS * ((size_t)s->n_capacity + 1) * sizeof(int));
	s->node_block = block;
	s->n_capacity = cap;
	for (int f = 0; f < NODE_FIELDS; ++f)
	{
		*node_field(s, f) = block + (size_t)f * stride;
	}
	return true;
}

void sparse_ldl_release(sparse_ldl* s, sn_memory* m)
{
	memory_free(m, s->node_block, NODE_FIELDS * ((size_t)s->n_capacity + 1) * sizeof(int));
	memory_free(m, s->col_idx, (size_t)s->nnz_capacity * sizeof(int));
	memory_free(m, s->blk_off, (size_t)s->blk_capacity * sizeof(int));
	memory_free(m, s->pool, (size_t)s->pool_capacity * sizeof(int));
	memory_free(m, s->val, (size_t)s->val_capacity * sizeof(double));
	memory_free(m, s->piv, (size_t)s->piv_capacity * sizeof(double));
	memory_free(m, s->orig, (size_t)s->orig_capacity * sizeof(double));
	memory_free(m, s->work, (size_t)s->work_capacity * sizeof(double));
	memset(s, 0, sizeof(*s));
}

static void bucket_unlink(sparse_ldl* s, int v, int degree)
{
	if (s->prev[v] >= 0)
	{
		s->next[s->prev[v]] = s->next[v];
	}
	else
	{
		s->head[degree] = s->next[v];
	}
	if (s->next[v] >= 0)
	{
		s->prev[s->next[v]] = s->prev[v];
	}
}

static void bucket_link(sparse_ldl* s, int v, int degree)
{
	s->prev[v] = -1;
	s->next[v] = s->head[degree];
	if (s->head[degree] >= 0)
	{
		s->prev[s->head[degree]] = v;
	}
	s->head[degree] = v;
}

// Make room for `extra` more entries in v's neighbour list (moving it to the pool's end if needed).
static bool list_grow(sparse_ldl* s, sn_memory* m, int* pool_used, int v, int extra)
{
	int need = s->list_len[v] + extra;
	if (need <= s->list_cap[v])
	{
		return true;
	}
	int cap = 2 * need;
	if (!reserve_int(m, &s->pool, &s->pool_capacity, *pool_used + cap))
	{
		return false;
	}
	if (s->list_len[v] > 0)
	{
		memmove(s->pool + *pool_used, s->pool + s->list_start[v], (size_t)s->list_len[v] * sizeof(int));
	}
	s->list_start[v] = *pool_used;
	s->list_cap[v] = cap;
	*pool_used += cap;
	return true;
}

static void sort_ints(int* a, int count)
{
	for (int i = 1; i < count; ++i)
	{
		int x = a[i], j = i - 1;
		while (j >= 0 && a[j] > x)
		{
			a[j + 1] = a[j];
			j -= 1;
		}
		a[j + 1] = x;
	}
}

bool sparse_ldl_analyse(sparse_ldl* s, sn_memory* m, int n, const int* adj_ptr, const int* adj, const int* cap)
{
	s->n = 0;
	s->nnz = 0;
	if (!reserve_node_arrays(s, m, n))
	{
		return false;
	}
	int pool_used = 0;
	if (!reserve_int(m, &s->pool, &s->pool_capacity, 2 * adj_ptr[n] + 16))
	{
		return false;
	}
	for (int v = 0; v < n; ++v)
	{
		int len = adj_ptr[v + 1] - adj_ptr[v];
		s->list_start[v] = pool_used;
		s->list_len[v] = len;
		s->list_cap[v] = 2 * len;
		if (len > 0)
		{
			memcpy(s->pool + pool_used, adj + adj_ptr[v], (size_t)len * sizeof(int));
		}
		pool_used += 2 * len;
		s->cap[v] = cap[v];
		s->mark[v] = -1;
	}
	for (int d = 0; d <= n; ++d)
	{
		s->head[d] = -1;
	}
	for (int v = n - 1; v >= 0; --v)
	{
		bucket_link(s, v, s->list_len[v]);
	}
	int min_degree = 0;
	s->col_ptr[0] = 0;
	for (int k = 0; k < n; ++k)
	{
		while (s->head[min_degree] < 0)
		{
			min_degree += 1;
		}
		int v = s->head[min_degree];
		bucket_unlink(s, v, min_degree);
		s->order[k] = v;
		s->pos[v] = k;
		s->list_len[v] = -s->list_len[v] - 1; // eliminated: kept readable below, excluded from buckets
		int degree = -s->list_len[v] - 1;
		// Column k of L: v's live neighbours.
		if (!reserve_int(m, &s->col_idx, &s->nnz_capacity, s->nnz + degree))
		{
			return false;
		}
		if (degree > 0)
		{
			memcpy(s->col_idx + s->nnz, s->pool + s->list_start[v], (size_t)degree * sizeof(int));
		}
		int first = s->nnz;
		s->nnz += degree;
		s->col_ptr[k + 1] = s->nnz;
		// Each neighbour loses v and gains the others.
		for (int e = 0; e < degree; ++e)
		{
			int u = s->col_idx[first + e];
			bucket_unlink(s, u, s->list_len[u]);
			if (!list_grow(s, m, &pool_used, u, degree))
			{
				return false;
			}
			int* lu = s->pool + s->list_start[u];
			int len = s->list_len[u];
			for (int t = 0; t < len; ++t)
			{
				if (lu[t] == v)
				{
					lu[t] = lu[--len];
					break;
				}
			}
			for (int t = 0; t < len; ++t)
			{
				s->mark[lu[t]] = u;
			}
			for (int f = 0; f < degree; ++f)
			{
				int w = s->col_idx[first + f];
				if (w != u && s->mark[w] != u)
				{
					lu[len++] = w;
				}
			}
			s->list_len[u] = len;
			bucket_link(s, u, len);
			if (len < min_degree)
			{
				min_degree = len;
			}
		}
	}
	// Columns in positions, ascending.
	for (int k = 0; k < n; ++k)
	{
		for (int e = s->col_ptr[k]; e < s->col_ptr[k + 1]; ++e)
		{
			s->col_idx[e] = s->pos[s->col_idx[e]];
		}
		sort_ints(s->col_idx + s->col_ptr[k], s->col_ptr[k + 1] - s->col_ptr[k]);
	}
	// Storage for the largest system the caps allow.
	long long values = 0, rows = 0, column_most = 0;
	for (int k = 0; k < n; ++k)
	{
		int ck = cap[s->order[k]];
		rows += ck;
		values += (long long)ck * ck;
		long long column = 0;
		for (int e = s->col_ptr[k]; e < s->col_ptr[k + 1]; ++e)
		{
			column += (long long)ck * cap[s->order[s->col_idx[e]]];
		}
		values += column;
		column_most = column > column_most ? column : column_most;
	}
	if (values > (1ll << 30) || rows > (1ll << 28))
	{
		return false;
	}
	bool ok = reserve_double(m, &s->val, &s->val_capacity, (int)values + 1);
	ok = ok && reserve_double(m, &s->piv, &s->piv_capacity, (int)rows + 1);
	ok = ok && reserve_double(m, &s->orig, &s->orig_capacity, (int)rows + 1);
	ok = ok && reserve_int(m, &s->blk_off, &s->blk_capacity, s->nnz + 1);
	ok = ok && reserve_double(m, &s->work, &s->work_capacity, (int)column_most + 1);
	if (!ok)
	{
		return false;
	}
	s->n = n;
	return true;
}

// ---- numeric -----------------------------------------------------------------------------------------

int sparse_ldl_begin(sparse_ldl* s, const int* dims)
{
	int rows = 0;
	for (int i = 0; i < s->n; ++i)
	{
		s->dim[i] = dims[i];
		s->row_off[i] = rows;
		rows += dims[i];
	}
	s->row_off[s->n] = rows;
	int off = 0;
	for (int k = 0; k < s->n; ++k)
	{
		int mk = s->dim[s->order[k]];
		s->diag_off[k] = off;
		off += mk * mk;
		for (int e = s->col_ptr[k]; e < s->col_ptr[k + 1]; ++e)
		{
			s->blk_off[e] = off;
			off += mk * s->dim[s->order[s->col_idx[e]]];
		}
	}
	if (off > 0)
	{
		memset(s->val, 0, (size_t)off * sizeof(double));
	}
	s->size = rows;
	return rows;
}

// Offset of block (row position i, column position k), i > k.
static int find_block(const sparse_ldl* s, int i, int k)
{
	int lo = s->col_ptr[k], hi = s->col_ptr[k + 1] - 1;
	while (lo <= hi)
	{
		int mid = (lo + hi) / 2;
		if (s->col_idx[mid] == i)
		{
			return s->blk_off[mid];
		}
		if (s->col_idx[mid] < i)
		{
			lo = mid + 1;
		}
		else
		{
			hi = mid - 1;
		}
	}
	return -1;
}

void sparse_ldl_add(sparse_ldl* s, int i, int j, const double* block)
{
	int mi = s->dim[i], mj = s->dim[j];
	if (mi == 0 || mj == 0)
	{
		return;
	}
	int pi = s->pos[i], pj = s->pos[j];
	if (pi == pj)
	{
		double* d = s->val + s->diag_off[pi];
		for (int t = 0; t < mi * mi; ++t)
		{
			d[t] += block[t];
		}
		return;
	}
	if (pi > pj)
	{
		double* b = s->val + find_block(s, pi, pj); // rows of i, columns of j
		for (int t = 0; t < mi * mj; ++t)
		{
			b[t] += block[t];
		}
		return;
	}
	double* b = s->val + find_block(s, pj, pi); // rows of j, columns of i: the transpose
	for (int r = 0; r < mi; ++r)
	{
		for (int c = 0; c < mj; ++c)
		{
			b[c * mi + r] += block[r * mj + c];
		}
	}
}

// Dense LDL^T of the m x m diagonal block in place (lower triangle read, L stored below the diagonal,
// pivots into d). Returns the number of rows dropped as dependent.
static int factor_diagonal(double* a, int m, double* d, const double* orig, double drop_tol, double floor_tol,
						   int* floored)
{
	int dropped = 0;
	for (int j = 0; j < m; ++j)
	{
		double dj = a[j * m + j];
		for (int t = 0; t < j; ++t)
		{
			dj -= a[j * m + t] * a[j * m + t] * d[t];
		}
		if (!(dj > drop_tol * orig[j]))
		{
			d[j] = 0.0;
			for (int i = j + 1; i < m; ++i)
			{
				a[i * m + j] = 0.0;
			}
			dropped += 1;
			continue;
		}
		if (dj < floor_tol * orig[j])
		{
			dj = floor_tol * orig[j];
			*floored += 1;
		}
		d[j] = dj;
		double inv = 1.0 / dj;
		for (int i = j + 1; i < m; ++i)
		{
			double v = a[i * m + j];
			for (int t = 0; t < j; ++t)
			{
				v -= a[i * m + t] * a[j * m + t] * d[t];
			}
			a[i * m + j] = v * inv;
		}
	}
	return dropped;
}

// L_ik = A_ik L_kk^-T d^-1 in place (mi x mk).
static void factor_off_diagonal(double* b, int mi, int mk, const double* lkk, const double* d)
{
	for (int r = 0; r < mi; ++r)
	{
		double* row = b + r * mk;
		for (int j = 0; j < mk; ++j)
		{
			double v = row[j];
			for (int t = 0; t < j; ++t)
			{
				v -= row[t] * lkk[j * mk + t];
			}
			row[j] = v;
		}
		for (int j = 0; j < mk; ++j)
		{
			row[j] = d[j] != 0.0 ? row[j] / d[j] : 0.0;
		}
	}
}

// target (mi x mj) -= L_ik W_jk^T with W_jk = L_jk d (precomputed); lower triangle only when `diagonal`.
static void schur_update(double* target, const double* lik, const double* wjk, int mi, int mj, int mk, bool diagonal)
{
	for (int r = 0; r < mi; ++r)
	{
		int cend = diagonal ? r + 1 : mj;
		const double* lr = lik + r * mk;
		for (int c = 0; c < cend; ++c)
		{
			const double* wc = wjk + c * mk;
			double v = 0.0;
			for (int t = 0; t < mk; ++t)
			{
				v += lr[t] * wc[t];
			}
			target[r * mj + c] -= v;
		}
	}
}

int sparse_ldl_factor(sparse_ldl* s, double drop_tol, const double* floor_tol)
{
	int dropped = 0;
	s->floored = 0;
	for (int k = 0; k < s->n; ++k)
	{
		int node = s->order[k];
		int m = s->dim[node];
		const double* diag = s->val + s->diag_off[k];
		for (int j = 0; j < m; ++j)
		{
			s->orig[s->row_off[node] + j] = diag[j * m + j];
		}
	}
	for (int k = 0; k < s->n; ++k)
	{
		int node = s->order[k];
		int mk = s->dim[node];
		if (mk == 0)
		{
			continue;
		}
		double* lkk = s->val + s->diag_off[k];
		double* d = s->piv + s->row_off[node];
		double floor = floor_tol != NULL ? floor_tol[node] : 0.0;
		dropped += factor_diagonal(lkk, mk, d, s->orig + s->row_off[node], drop_tol, floor, &s->floored);
		int e0 = s->col_ptr[k], e1 = s->col_ptr[k + 1];
		// L_ik, and W_ik = L_ik d (a copy in the work area, at the same offsets as the blocks of column k).
		int w0 = e0 < e1 ? s->blk_off[e0] : 0;
		for (int e = e0; e < e1; ++e)
		{
			int mi = s->dim[s->order[s->col_idx[e]]];
			double* lik = s->val + s->blk_off[e];
			factor_off_diagonal(lik, mi, mk, lkk, d);
			double* wik = s->work + (s->blk_off[e] - w0);
			for (int r = 0; r < mi; ++r)
			{
				for (int t = 0; t < mk; ++t)
				{
					wik[r * mk + t] = lik[r * mk + t] * d[t];
				}
			}
		}
		for (int ej = e0; ej < e1; ++ej)
		{
			int pj = s->col_idx[ej];
			int mj = s->dim[s->order[pj]];
			if (mj == 0)
			{
				continue;
			}
			const double* ljk = s->val + s->blk_off[ej];
			const double* wjk = s->work + (s->blk_off[ej] - w0);
			schur_update(s->val + s->diag_off[pj], ljk, wjk, mj, mj, mk, true);
			if (ej + 1 == e1)
			{
				continue;
			}
			for (int e = s->col_ptr[pj]; e < s->col_ptr[pj + 1]; ++e)
			{
				s->where[s->col_idx[e]] = s->blk_off[e];
			}
			for (int ei = ej + 1; ei < e1; ++ei)
			{
				int pi = s->col_idx[ei];
				int mi = s->dim[s->order[pi]];
				schur_update(s->val + s->where[pi], s->val + s->blk_off[ei], wjk, mi, mj, mk, false);
			}
		}
	}
	s->dropped = dropped;
	return dropped;
}

void sparse_ldl_solve(const sparse_ldl* s, double* x)
{
	for (int k = 0; k < s->n; ++k)
	{
		int node = s->order[k];
		int mk = s->dim[node];
		double* xk = x + s->row_off[node];
		const double* lkk = s->val + s->diag_off[k];
		for (int j = 0; j < mk; ++j)
		{
			for (int t = 0; t < j; ++t)
			{
				xk[j] -= lkk[j * mk + t] * xk[t];
			}
		}
		for (int e = s->col_ptr[k]; e < s->col_ptr[k + 1]; ++e)
		{
			int ni = s->order[s->col_idx[e]];
			int mi = s->dim[ni];
			double* xi = x + s->row_off[ni];
			const double* lik = s->val + s->blk_off[e];
			for (int r = 0; r < mi; ++r)
			{
				double v = 0.0;
				for (int t = 0; t < mk; ++t)
				{
					v += lik[r * mk + t] * xk[t];
				}
				xi[r] -= v;
			}
		}
	}
	for (int r = 0; r < s->size; ++r)
	{
		x[r] = s->piv[r] != 0.0 ? x[r] / s->piv[r] : 0.0;
	}
	for (int k = s->n - 1; k >= 0; --k)
	{
		int node = s->order[k];
		int mk = s->dim[node];
		double* xk = x + s->row_off[node];
		const double* lkk = s->val + s->diag_off[k];
		for (int e = s->col_ptr[k]; e < s->col_ptr[k + 1]; ++e)
		{
			int ni = s->order[s->col_idx[e]];
			int mi = s->dim[ni];
			const double* xi = x + s->row_off[ni];
			const double* lik = s->val + s->blk_off[e];
			for (int r = 0; r < mi; ++r)
			{
				for (int t = 0; t < mk; ++t)
				{
					xk[t] -= lik[r * mk + t] * xi[r];
				}
			}
		}
		for (int j = mk - 1; j >= 0; --j)
		{
			for (int t = j + 1; t < mk; ++t)
			{
				xk[j] -= lkk[t * mk + j] * xk[t];
			}
		}
	}
}
