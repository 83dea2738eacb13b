// A world's owner and members (see members.h).
#include "members.h"

#include <stdlib.h>
#include <string.h>

world_member* members_find(world_members* w, uint64_t session_id)
{
	for (int i = 0; i < w->count; ++i)
	{
		if (w->list[i].session_id == session_id)
		{
			return w->list + i;
		}
	}
	return NULL;
}

sinew_v1_Role members_role(const world_members* w, uint64_t session_id)
{
	if (w->owner != 0 && w->owner == session_id)
	{
		return sinew_v1_Role_ROLE_OWNER;
	}
	for (int i = 0; i < w->count; ++i)
	{
		if (w->list[i].session_id == session_id)
		{
			return w->list[i].role;
		}
	}
	return sinew_v1_Role_ROLE_OBSERVER;
}

bool members_set(world_members* w, uint64_t session_id, sinew_v1_Role role, bool controlling)
{
	world_member* m = members_find(w, session_id);
	if (m == NULL)
	{
		if (w->count == w->capacity)
		{
			int capacity = w->capacity > 0 ? 2 * w->capacity : 4;
			world_member* list = realloc(w->list, (size_t)capacity * sizeof(world_member));
			if (list == NULL)
			{
				return false;
			}
			w->list = list;
			w->capacity = capacity;
		}
		m = w->list + w->count++;
		memset(m, 0, sizeof(*m));
		m->session_id = session_id;
	}
	m->role = role;
	m->controlling = controlling;
	return true;
}

void members_remove(world_members* w, uint64_t session_id)
{
	for (int i = 0; i < w->count; ++i)
	{
		if (w->list[i].session_id == session_id)
		{
			free(w->list[i].input);
			// Keep join order: it is the order lockstep inputs are applied in.
			memmove(w->list + i, w->list + i + 1, (size_t)(w->count - i - 1) * sizeof(world_member));
			w->count -= 1;
			return;
		}
	}
}

void members_free(world_members* w)
{
	for (int i = 0; i < w->count; ++i)
	{
		free(w->list[i].input);
	}
	free(w->list);
	w->list = NULL;
	w->count = 0;
	w->capacity = 0;
}
