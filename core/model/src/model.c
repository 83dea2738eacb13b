// The model after reading: names resolved to indices, the tree checked (every link reached from one root
// by exactly one path), mimic references checked, visual colours taken from named materials, and the
// links ordered parents first. Also the small conversions URDF needs (rpy, axis, mimic) and lookups.
//
// Tree checks, in this order so that each error names its real cause:
//   1. names: links and joints unique; a top-level material defined twice must have the same colour;
//   2. each joint's parent and child name a link; a link is the child of at most one joint;
//   3. links not reached from any root (a link no joint leads to) lie on a cycle: the cycle is reported
//      with its joints; a joint whose parent is its child is the cycle of one;
//   4. more than one root: the links do not form one tree;
//   5. mimic: the referenced joint exists, is not the joint itself, is not itself a mimic (no chains),
//      and both joints have one coordinate.
// Name lookups go through a sorted index (O(n log n)), so a file at the count limits is checked quickly.
#include "model_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void model_error_clear(snm_error* error)
{
	if (error != NULL)
	{
		memset(error, 0, sizeof(*error));
		error->code = SN_ERR_OK;
	}
}

sn_error model_vfail(snm_error* error, sn_error code, const char* file, int line, int column, const char* element,
					 const char* format, va_list args)
{
	if (error == NULL)
	{
		return code;
	}
	error->code = code;
	error->line = line;
	error->column = column;
	snprintf(error->element, sizeof(error->element), "%s", element != NULL ? element : "");
	vsnprintf(error->message, sizeof(error->message), format, args);
	char place[32] = "";
	if (line > 0 && column > 0)
	{
		snprintf(place, sizeof(place), "%d:%d:", line, column);
	}
	else if (line > 0)
	{
		snprintf(place, sizeof(place), "%d:", line);
	}
	snprintf(error->text, sizeof(error->text), "%.300s:%s %s%s%s", file != NULL ? file : "<urdf>", place,
			 error->element, error->element[0] != '\0' ? ": " : "", error->message);
	return code;
}

sn_error model_fail(snm_error* error, sn_error code, const char* file, int line, int column, const char* element,
					const char* format, ...)
{
	va_list args;
	va_start(args, format);
	model_vfail(error, code, file, line, column, element, format, args);
	va_end(args);
	return code;
}

void model_warn(snm_warning** items, int* count, int* dropped, const char* file, int line, const char* element,
				const char* format, ...)
{
	if (*count >= SNM_MAX_WARNINGS)
	{
		*dropped += 1;
		return;
	}
	snm_warning* grown = realloc(*items, (size_t)(*count + 1) * sizeof(snm_warning));
	if (grown == NULL)
	{
		*dropped += 1;
		return;
	}
	*items = grown;
	snm_warning* w = grown + (*count)++;
	w->line = line;
	snprintf(w->element, sizeof(w->element), "%s", element != NULL ? element : "");
	va_list args;
	va_start(args, format);
	vsnprintf(w->message, sizeof(w->message), format, args);
	va_end(args);
	char place[24] = "";
	if (line > 0)
	{
		snprintf(place, sizeof(place), "%d:", line);
	}
	snprintf(w->text, sizeof(w->text), "%.200s:%.23s %.95s%s%.255s", file != NULL ? file : "<urdf>", place, w->element,
			 w->element[0] != '\0' ? ": " : "", w->message);
}

void model_sym_eigen(sn_mat33 a, double values[3], sn_mat33* vectors)
{
	// m[r][c] row-major copy; v accumulates the rotations (columns are eigenvectors).
	double m[3][3] = { { a.cx.x, a.cy.x, a.cz.x }, { a.cx.y, a.cy.y, a.cz.y }, { a.cx.z, a.cy.z, a.cz.z } };
	double v[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
	for (int sweep = 0; sweep < 32; ++sweep)
	{
		double off = fabs(m[0][1]) + fabs(m[0][2]) + fabs(m[1][2]);
		double scale = fabs(m[0][0]) + fabs(m[1][1]) + fabs(m[2][2]);
		if (!(off > 1e-300) || off <= 1e-17 * scale)
		{
			break;
		}
		for (int p = 0; p < 2; ++p)
		{
			for (int q = p + 1; q < 3; ++q)
			{
				if (m[p][q] == 0.0)
				{
					continue;
				}
				// Rotation in the (p, q) plane that zeroes m[p][q].
				double theta = (m[q][q] - m[p][p]) / (2.0 * m[p][q]);
				double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
				double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
				for (int k = 0; k < 3; ++k)
				{
					double mkp = m[k][p], mkq = m[k][q];
					m[k][p] = c * mkp - s * mkq;
					m[k][q] = s * mkp + c * mkq;
				}
				for (int k = 0; k < 3; ++k)
				{
					double mpk = m[p][k], mqk = m[q][k];
					m[p][k] = c * mpk - s * mqk;
					m[q][k] = s * mpk + c * mqk;
				}
				for (int k = 0; k < 3; ++k)
				{
					double vkp = v[k][p], vkq = v[k][q];
					v[k][p] = c * vkp - s * vkq;
					v[k][q] = s * vkp + c * vkq;
				}
			}
		}
	}
	int order[3] = { 0, 1, 2 };
	for (int i = 0; i < 3; ++i)
	{
		for (int j = i + 1; j < 3; ++j)
		{
			if (m[order[j]][order[j]] < m[order[i]][order[i]])
			{
				int t = order[i];
				order[i] = order[j];
				order[j] = t;
			}
		}
	}
	for (int i = 0; i < 3; ++i)
	{
		values[i] = m[order[i]][order[i]];
	}
	if (vectors != NULL)
	{
		vectors->cx = sn_v3(v[0][order[0]], v[1][order[0]], v[2][order[0]]);
		vectors->cy = sn_v3(v[0][order[1]], v[1][order[1]], v[2][order[1]]);
		vectors->cz = sn_v3(v[0][order[2]], v[1][order[2]], v[2][order[2]]);
	}
}

bool model_copy_name(char* destination, size_t capacity, const char* source)
{
	size_t n = strlen(source);
	if (n >= capacity)
	{
		return false;
	}
	memcpy(destination, source, n + 1);
	return true;
}

const char* snm_joint_type_name(snm_joint_type type)
{
	switch (type)
	{
		case SNM_JOINT_FIXED:
			return "fixed";
		case SNM_JOINT_REVOLUTE:
			return "revolute";
		case SNM_JOINT_CONTINUOUS:
			return "continuous";
		case SNM_JOINT_PRISMATIC:
			return "prismatic";
		case SNM_JOINT_FLOATING:
			return "floating";
		case SNM_JOINT_PLANAR:
			return "planar";
	}
	return "unknown";
}

int snm_joint_dof_count(snm_joint_type type)
{
	switch (type)
	{
		case SNM_JOINT_REVOLUTE:
		case SNM_JOINT_CONTINUOUS:
		case SNM_JOINT_PRISMATIC:
			return 1;
		case SNM_JOINT_FLOATING:
			return 6;
		case SNM_JOINT_PLANAR:
			return 3;
		case SNM_JOINT_FIXED:
			break;
	}
	return 0;
}

void snm_urdf_mimic_to_core(double multiplier, double offset, double* gearing, double* gamma)
{
	// q_this = multiplier * q_ref + offset  <=>  q_this + (-multiplier) q_ref + (-offset) = 0.
	*gearing = -multiplier;
	*gamma = -offset;
}

sn_quat snm_quat_from_rpy(double roll, double pitch, double yaw)
{
	// Fixed axes x, y, z in that order: R = Rz(yaw) Ry(pitch) Rx(roll).
	sn_quat qx = { sin(0.5 * roll), 0.0, 0.0, cos(0.5 * roll) };
	sn_quat qy = { 0.0, sin(0.5 * pitch), 0.0, cos(0.5 * pitch) };
	sn_quat qz = { 0.0, 0.0, sin(0.5 * yaw), cos(0.5 * yaw) };
	return sn_quat_mul(qz, sn_quat_mul(qy, qx));
}

sn_quat snm_axis_rotation(sn_vec3 axis)
{
	// Shortest arc from x to a: q = normalise(1 + x.a, x cross a) with x cross a = (0, -a.z, a.y). Near
	// a = -x, 1 + x.a cancels (an axis 1e-9 off -x would come out 1e-9 wrong), so for x.a < 0 turn x onto
	// -x first by half a turn about z, then take the shortest arc from -x: (1 - a.x, (-x) cross a) with
	// (-x) cross a = (0, a.z, -a.y). Both factors are then well conditioned.
	sn_vec3 a = sn_normalize(axis);
	if (a.y == 0.0 && a.z == 0.0 && a.x > 0.0)
	{
		return sn_quat_identity();
	}
	if (a.x >= 0.0)
	{
		sn_quat q = { 0.0, -a.z, a.y, 1.0 + a.x };
		return sn_quat_normalize(q);
	}
	sn_quat arc = { 0.0, a.z, -a.y, 1.0 - a.x };
	sn_quat half_turn_z = { 0.0, 0.0, 1.0, 0.0 };
	return sn_quat_mul(sn_quat_normalize(arc), half_turn_z);
}

// ---- Sorted name index ----

typedef struct name_entry
{
	const char* name;
	int index;
} name_entry;

static int compare_entries(const void* a, const void* b)
{
	const name_entry* x = a;
	const name_entry* y = b;
	int c = strcmp(x->name, y->name);
	// Ties by index, so the first definition sorts first and duplicates report the later one.
	return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

static int find_entry(const name_entry* entries, int count, const char* name)
{
	int lo = 0, hi = count - 1;
	while (lo <= hi)
	{
		int mid = lo + (hi - lo) / 2;
		int c = strcmp(entries[mid].name, name);
		if (c == 0)
		{
			// The first of equal names (duplicates are rejected before lookups, but stay safe).
			while (mid > 0 && strcmp(entries[mid - 1].name, name) == 0)
			{
				--mid;
			}
			return entries[mid].index;
		}
		if (c < 0)
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

// Public lookups are linear: callers look up a few names, and the model keeps no index of its own.
int snm_model_find_link(const snm_model* model, const char* name)
{
	if (model == NULL || name == NULL)
	{
		return -1;
	}
	for (int i = 0; i < model->link_count; ++i)
	{
		if (strcmp(model->links[i].name, name) == 0)
		{
			return i;
		}
	}
	return -1;
}

int snm_model_find_joint(const snm_model* model, const char* name)
{
	if (model == NULL || name == NULL)
	{
		return -1;
	}
	for (int i = 0; i < model->joint_count; ++i)
	{
		if (strcmp(model->joints[i].name, name) == 0)
		{
			return i;
		}
	}
	return -1;
}

void snm_model_destroy(snm_model* model)
{
	if (model == NULL)
	{
		return;
	}
	model_free_meshes(model); // first: it resets the visuals' and collisions' mesh indices
	free(model->links);
	free(model->joints);
	free(model->visuals);
	free(model->collisions);
	free(model->materials);
	free(model->link_order);
	free(model->warnings);
	free(model);
}

// ---- Checks ----

// Everything model_finish allocates, freed on every path.
typedef struct scratch
{
	name_entry* links;
	name_entry* joints;
	name_entry* materials;
	int* child_start; // link_count + 1: child joints of link i are child_joint[child_start[i] .. [i+1])
	int* child_joint;
	int* stack;
	unsigned char* reached;
} scratch;

static void scratch_free(scratch* s)
{
	free(s->links);
	free(s->joints);
	free(s->materials);
	free(s->child_start);
	free(s->child_joint);
	free(s->stack);
	free(s->reached);
}

static void joint_element(const snm_joint* j, char* out, size_t capacity)
{
	snprintf(out, capacity, "<joint name=\"%.60s\">", j->name);
}

static void link_element(const snm_link* l, char* out, size_t capacity)
{
	snprintf(out, capacity, "<link name=\"%.60s\">", l->name);
}

static sn_error check_names(snm_model* m, scratch* s, snm_error* error)
{
	char element[96];
	for (int i = 0; i < m->link_count; ++i)
	{
		s->links[i].name = m->links[i].name;
		s->links[i].index = i;
	}
	qsort(s->links, (size_t)m->link_count, sizeof(name_entry), compare_entries);
	for (int i = 1; i < m->link_count; ++i)
	{
		if (strcmp(s->links[i - 1].name, s->links[i].name) == 0)
		{
			const snm_link* second = &m->links[s->links[i].index];
			link_element(second, element, sizeof(element));
			return model_fail(error, SN_ERR_INVALID_ARGUMENT, m->file, second->line, 0, element,
							  "a second link named \"%.60s\" (the first is on line %d)", second->name,
							  m->links[s->links[i - 1].index].line);
		}
	}
	for (int i = 0; i < m->joint_count; ++i)
	{
		s->joints[i].name = m->joints[i].name;
		s->joints[i].index = i;
	}
	qsort(s->joints, (size_t)m->joint_count, sizeof(name_entry), compare_entries);
	for (int i = 1; i < m->joint_count; ++i)
	{
		if (strcmp(s->joints[i - 1].name, s->joints[i].name) == 0)
		{
			const snm_joint* second = &m->joints[s->joints[i].index];
			joint_element(second, element, sizeof(element));
			return model_fail(error, SN_ERR_INVALID_ARGUMENT, m->file, second->line, 0, element,
							  "a second joint named \"%.60s\" (the first is on line %d)", second->name,
							  m->joints[s->joints[i - 1].index].line);
		}
	}
	for (int i = 0; i < m->material_count; ++i)
	{
		s->materials[i].name = m->materials[i].name;
		s->materials[i].index = i;
	}
	qsort(s->materials, (size_t)m->material_count, sizeof(name_entry), compare_entries);
	for (int i = 1; i < m->material_count; ++i)
	{
		const snm_material* a = &m->materials[s->materials[i - 1].index];
		const snm_material* b = &m->materials[s->materials[i].index];
		if (strcmp(a->name, b->name) == 0 &&
			(a->has_color != b->has_color || memcmp(a->rgba, b->rgba, sizeof(a->rgba)) != 0 ||
			 strcmp(a->texture, b->texture) != 0))
		{
			snprintf(element, sizeof(element), "<material name=\"%.60s\">", b->name);
			return model_fail(error, SN_ERR_INVALID_ARGUMENT, m->file, b->line, 0, element,
							  "material \"%.60s\" is defined again differently (first on line %d)", b->name, a->line);
		}
	}
	return SN_ERR_OK;
}

static sn_error resolve_joints(snm_model* m, scratch* s, snm_error* error)
{
	char element[96];
	for (int i = 0; i < m->joint_count; ++i)
	{
		snm_joint* j = &m->joints[i];
		joint_element(j, element, sizeof(element));
		j->parent = find_entry(s->links, m->link_count, j->parent_name);
		if (j->parent < 0)
		{
			return model_fail(error, SN_ERR_TOPOLOGY, m->file, j->parent_line, 0, element,
							  "parent link \"%.60s\" is not defined", j->parent_name);
		}
		j->child = find_entry(s->links, m->link_count, j->child_name);
		if (j->child < 0)
		{
			return model_fail(error, SN_ERR_TOPOLOGY, m->file, j->child_line, 0, element,
							  "child link \"%.60s\" is not defined", j->child_name);
		}
		snm_link* child = &m->links[j->child];
		if (child->parent_joint >= 0)
		{
			return model_fail(error, SN_ERR_TOPOLOGY, m->file, j->child_line, 0, element,
							  "link \"%.60s\" is already the child of joint \"%.60s\" (line %d); a link has one parent",
							  child->name, m->joints[child->parent_joint].name, m->joints[child->parent_joint].line);
		}
		child->parent_joint = i;
	}
	return SN_ERR_OK;
}

// Report the cycle that an unreached link hangs from: walk up parent joints until a link repeats.
static sn_error report_cycle(snm_model* m, scratch* s, int start, snm_error* error)
{
	// Mark the walk (value 2) to find the first repeated link; the walk is at most link_count long since
	// every unreached link has a parent joint.
	int link = start;
	while (s->reached[link] != 2)
	{
		s->reached[link] = 2;
		link = m->joints[m->links[link].parent_joint].parent;
	}
	// link is on the cycle. List its joints in the order parent -> child, and blame the last one in the file.
	char names[200] = "";
	size_t used = 0;
	int blame = -1, count = 0;
	int at = link;
	do
	{
		int joint = m->links[at].parent_joint;
		if (blame < 0 || m->joints[joint].line > m->joints[blame].line)
		{
			blame = joint;
		}
		if (used < sizeof(names) - 1)
		{
			int n = snprintf(names + used, sizeof(names) - used, "%s\"%.40s\"", count > 0 ? ", " : "",
							 m->joints[joint].name);
			used = n > 0 ? used + (size_t)n : used;
			if (used > sizeof(names) - 1)
			{
				used = sizeof(names) - 1;
			}
		}
		++count;
		at = m->joints[joint].parent;
	} while (at != link);
	char element[96];
	joint_element(&m->joints[blame], element, sizeof(element));
	if (count == 1)
	{
		return model_fail(error, SN_ERR_TOPOLOGY, m->file, m->joints[blame].line, 0, element,
						  "the joint's parent and child are the same link \"%.60s\"", m->links[link].name);
	}
	return model_fail(error, SN_ERR_TOPOLOGY, m->file, m->joints[blame].line, 0, element,
					  "the joints %s form a cycle (%d links); the links must form a tree", names, count);
}

static sn_error check_tree(snm_model* m, scratch* s, snm_error* error)
{
	// Children of each link, in joint document order (a counting sort by parent).
	for (int i = 0; i < m->joint_count; ++i)
	{
		s->child_start[m->joints[i].parent + 1]++;
	}
	for (int i = 0; i < m->link_count; ++i)
	{
		s->child_start[i + 1] += s->child_start[i];
	}
	for (int i = 0; i < m->joint_count; ++i)
	{
		int p = m->joints[i].parent;
		// child_start[p] is used as the fill cursor, then restored below.
		s->child_joint[s->child_start[p]++] = i;
	}
	for (int i = m->link_count; i > 0; --i)
	{
		s->child_start[i] = s->child_start[i - 1];
	}
	s->child_start[0] = 0;

	// Depth-first from every root, children in document order; the first root's walk is link_order.
	int roots = 0, first_root = -1, second_root = -1, ordered = 0;
	for (int r = 0; r < m->link_count; ++r)
	{
		if (m->links[r].parent_joint >= 0)
		{
			continue;
		}
		++roots;
		if (first_root < 0)
		{
			first_root = r;
		}
		else if (second_root < 0)
		{
			second_root = r;
		}
		int top = 0;
		s->stack[top++] = r;
		while (top > 0)
		{
			int link = s->stack[--top];
			s->reached[link] = 1;
			if (r == first_root)
			{
				m->link_order[ordered++] = link;
			}
			for (int k = s->child_start[link + 1] - 1; k >= s->child_start[link]; --k)
			{
				// Each link is pushed once: it has one parent joint, and cycles are not reachable from a root.
				s->stack[top++] = m->joints[s->child_joint[k]].child;
			}
		}
	}
	for (int i = 0; i < m->link_count; ++i)
	{
		if (!s->reached[i])
		{
			return report_cycle(m, s, i, error);
		}
	}
	if (roots > 1)
	{
		char element[96];
		link_element(&m->links[second_root], element, sizeof(element));
		return model_fail(error, SN_ERR_TOPOLOGY, m->file, m->links[second_root].line, 0, element,
						  "two roots: links \"%.50s\" (line %d) and \"%.50s\" are both no joint's child, so the links "
						  "are not one tree",
						  m->links[first_root].name, m->links[first_root].line, m->links[second_root].name);
	}
	m->root = first_root;
	return SN_ERR_OK;
}

static sn_error check_mimics(snm_model* m, scratch* s, snm_error* error)
{
	char element[96];
	// A fixed joint has no coordinate to couple: its <mimic> means nothing (and is not a mimic joint that
	// another could chain to).
	for (int i = 0; i < m->joint_count; ++i)
	{
		snm_joint* j = &m->joints[i];
		if (j->has_mimic && j->type == SNM_JOINT_FIXED)
		{
			joint_element(j, element, sizeof(element));
			model_warn(&m->warnings, &m->warning_count, &m->warnings_dropped, m->file, j->mimic_line, element,
					   "<mimic joint=\"%.60s\"> on a fixed joint is ignored (a fixed joint has no coordinate)",
					   j->mimic_name);
			j->has_mimic = false;
		}
	}
	for (int i = 0; i < m->joint_count; ++i)
	{
		snm_joint* j = &m->joints[i];
		if (!j->has_mimic)
		{
			continue;
		}
		joint_element(j, element, sizeof(element));
		int ref = find_entry(s->joints, m->joint_count, j->mimic_name);
		if (ref < 0)
		{
			return model_fail(error, SN_ERR_TOPOLOGY, m->file, j->mimic_line, 0, element,
							  "<mimic joint=\"%.60s\">: no joint has that name", j->mimic_name);
		}
		if (ref == i)
		{
			return model_fail(error, SN_ERR_TOPOLOGY, m->file, j->mimic_line, 0, element,
							  "<mimic>: a joint cannot mimic itself");
		}
		if (m->joints[ref].has_mimic)
		{
			return model_fail(error, SN_ERR_TOPOLOGY, m->file, j->mimic_line, 0, element,
							  "<mimic>: a mimic chain: \"%.40s\" mimics \"%.40s\", which mimics \"%.40s\"; mimic a "
							  "joint that is not itself a mimic",
							  j->name, m->joints[ref].name, m->joints[ref].mimic_name);
		}
		if (snm_joint_dof_count(j->type) != 1)
		{
			return model_fail(error, SN_ERR_WRONG_TYPE, m->file, j->mimic_line, 0, element,
							  "<mimic>: a %s joint cannot mimic; only revolute, continuous and prismatic joints can",
							  snm_joint_type_name(j->type));
		}
		if (snm_joint_dof_count(m->joints[ref].type) != 1)
		{
			return model_fail(error, SN_ERR_WRONG_TYPE, m->file, j->mimic_line, 0, element,
							  "<mimic>: joint \"%.60s\" is %s; only revolute, continuous and prismatic joints can be "
							  "mimicked",
							  m->joints[ref].name, snm_joint_type_name(m->joints[ref].type));
		}
		j->mimic = ref;
	}
	return SN_ERR_OK;
}

// A visual without its own colour takes the colour of the top-level material it names (if any).
static void resolve_materials(snm_model* m, scratch* s)
{
	for (int i = 0; i < m->visual_count; ++i)
	{
		snm_visual* v = &m->visuals[i];
		if (v->has_color || v->material[0] == '\0')
		{
			continue;
		}
		int index = find_entry(s->materials, m->material_count, v->material);
		if (index >= 0)
		{
			const snm_material* mat = &m->materials[index];
			v->has_color = mat->has_color;
			if (mat->has_color)
			{
				memcpy(v->rgba, mat->rgba, sizeof(v->rgba));
			}
			if (v->texture[0] == '\0')
			{
				memcpy(v->texture, mat->texture, sizeof(v->texture));
			}
		}
	}
}

sn_error model_finish(snm_model* m, snm_error* error)
{
	size_t links = (size_t)m->link_count, joints = (size_t)m->joint_count;
	scratch s;
	s.links = malloc(links * sizeof(name_entry));
	s.joints = malloc((joints > 0 ? joints : 1) * sizeof(name_entry));
	s.materials = malloc((m->material_count > 0 ? (size_t)m->material_count : 1) * sizeof(name_entry));
	s.child_start = calloc(links + 1, sizeof(int));
	s.child_joint = malloc((joints > 0 ? joints : 1) * sizeof(int));
	s.stack = malloc(links * sizeof(int));
	s.reached = calloc(links, 1);
	m->link_order = malloc(links * sizeof(int));
	if (s.links == NULL || s.joints == NULL || s.materials == NULL || s.child_start == NULL || s.child_joint == NULL ||
		s.stack == NULL || s.reached == NULL || m->link_order == NULL)
	{
		scratch_free(&s);
		return model_fail(error, SN_ERR_NO_MEMORY, m->file, 0, 0, "", "out of memory checking the model");
	}
	sn_error err = check_names(m, &s, error);
	if (err == SN_ERR_OK)
	{
		err = resolve_joints(m, &s, error);
	}
	if (err == SN_ERR_OK)
	{
		err = check_tree(m, &s, error);
	}
	if (err == SN_ERR_OK)
	{
		err = check_mimics(m, &s, error);
	}
	if (err == SN_ERR_OK)
	{
		resolve_materials(m, &s);
	}
	scratch_free(&s);
	return err;
}
