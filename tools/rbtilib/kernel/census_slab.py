# SPDX-License-Identifier: GPL-2.0
"""The census's slab route: the allocated objects of a few caches whose
objects hold roots (anon_vma, inodes with their address_space).

drgn's ``slab_cache_for_each_allocated_object()`` looks at every struct
page through a drgn Object (262,144 of them for 1 GiB: minutes in the
TCG guest).  Here the page array is read in bulk and only the pages of
the caches wanted are looked at closely: a slab's allocated objects are
those on neither its freelist nor the freelist of a CPU that allocates
from it (hardened or not), each freelist walked at most as far as the
slab has objects (drgn's own SLUB helper walks them without a bound, and
a freelist read while it changes can run in a circle); from 7.x on,
those on no freelist and in no sheaf.  A slab page is
told by ``PG_slab`` in its flags (6.1) or by its page type ``PGTY_slab``
(6.10 on).  A merged cache (other types' objects in it) is not read.
"""

from . import Fault
from .census_find import Finder
from .debuginfo import _drgn

SLAB_CACHES = (("anon_vma", ("struct anon_vma",)),
               ("shmem_inode_cache", ("struct shmem_inode_info",)),
               ("proc_inode_cache", ("struct proc_inode",)),
               ("inode_cache", ("struct inode",)),
               ("sock_inode_cache", ("struct sockfs_inode",
                                     "struct socket_alloc")))
"""Cache name -> the types its objects may have, newest kernel's first
(7.3's sockets are a struct sockfs_inode, which holds the socket_alloc of
6.1 and 6.12): the first the kernel has whose size is the cache's object
size is read; a cache with none is not."""

CHUNK = 2048
"""Struct pages read at once."""


def _slab_test(prog):
    """(offset, mask, value) such that a page is a slab page when the
    word at *offset* masked by *mask* is *value*."""
    try:
        return 0, 1 << prog.constant("PG_slab").value_(), None
    except (LookupError, AttributeError):
        pass
    pgty = prog.constant("PGTY_slab").value_()
    off = _drgn().offsetof(prog.type("struct page"), "page_type")
    return off, 0xff000000, pgty << 24


def _is_slab(data: bytes, at: int, mask: int, want) -> bool:
    """Whether the struct page whose slab-test word is at *at* of *data*
    is a slab page (:func:`_slab_test`'s offset, mask and value): the
    flags word, or the 32-bit page type."""
    word = int.from_bytes(data[at:at + 4 + 4 * (want is None)], "little")
    return bool(word & mask) if want is None else word & mask == want


def slab_type(prog):
    """The type a slab page is read as: ``struct slab *`` (5.17 on), else
    ``struct page *``."""
    return prog.type("struct slab *") if _has_type(prog, "struct slab") \
        else prog.type("struct page *")


def slab_pages(prog, mem, caches: dict) -> dict:
    """Cache address -> addresses of its slab pages (of *caches*)."""
    drgn = _drgn()
    vmemmap = int(prog["vmemmap"])
    lo, hi = int(prog["min_low_pfn"]), int(prog["max_pfn"])
    size = prog.type("struct page").size
    off, mask, want = _slab_test(prog)
    cache_off = drgn.offsetof(prog.type("struct slab"), "slab_cache") \
        if _has_type(prog, "struct slab") else \
        drgn.offsetof(prog.type("struct page"), "slab_cache")
    out: dict = {c: [] for c in caches}
    needles = [(c, c.to_bytes(8, "little")) for c in caches]
    for start in range(lo, hi, CHUNK):
        n = min(CHUNK, hi - start)
        base = vmemmap + start * size
        try:
            raw = mem.read(base, n * size)
        except Fault:
            continue
        # The caches' addresses, searched in C (bytes.find): a page is a
        # candidate where one lies at the slab_cache offset.
        for cache, needle in needles:
            pos = raw.find(needle)
            while pos >= 0:
                i, rem = divmod(pos - cache_off, size)
                if rem == 0 and 0 <= i < n and \
                        _is_slab(raw, i * size + off, mask, want):
                    out[cache].append(base + i * size)
                pos = raw.find(needle, pos + 1)
    return out


def _has_type(prog, name: str) -> bool:
    try:
        prog.type(name)
        return True
    except LookupError:
        return False


def find_slab(f: Finder) -> int:
    """The roots in the objects of :data:`SLAB_CACHES`; returns the number
    of objects looked at."""
    from drgn.helpers.linux.slab import find_slab_cache, slab_cache_is_merged
    drgn = _drgn()
    prog = f.prog
    caches = {}
    for name, type_names in SLAB_CACHES:
        cache = find_slab_cache(prog, name)
        if cache is None:
            continue
        known = [t for t in type_names if _has_type(prog, t)]
        size = int(cache.object_size)
        fits = [t for t in known if prog.type(t).size == size]
        if not fits:
            if known:
                f.notes.append(f"slab {name}: objects of {size} bytes, "
                               f"not those of {' or '.join(known)}: "
                               "not read")
            continue
        type_name = fits[0]
        if slab_cache_is_merged(cache):
            f.notes.append(f"slab {name}: merged with another cache, "
                           "not read")
            continue
        caches[int(cache.value_())] = (name, type_name, cache)
    if not caches:
        return 0
    pages = slab_pages(prog, f.mem, caches)
    n = 0
    for addr, (name, type_name, cache) in caches.items():
        otype = prog.type(type_name)
        try:
            cpu = _cpu_freelists(prog, cache)
        except drgn.FaultError:
            cpu = {}
        for page_addr in pages[addr]:
            try:
                objs = _objects(prog, cache, page_addr, cpu)
            except drgn.FaultError:
                continue
            for obj in objs:
                n += 1
                f.add_object(otype, obj, "slab", f"{name} {obj:#x}")
    return n


def _freelist(prog, cache, head: int, limit: int) -> set:
    """The objects on a SLUB freelist from *head*, at most *limit* of
    them (a freelist read while it changes can point anywhere, even in a
    circle): the next pointer lies at cache->offset in each free object,
    hardened (SLAB_FREELIST_HARDENED) as ptr ^ cache->random ^
    byteswap(&ptr).  A next pointer that cannot be read ends the walk
    there: one torn freelist does not hide the others."""
    fault = _drgn().FaultError
    off = int(cache.offset)
    try:
        rand = int(cache.random)
    except AttributeError:
        rand = None
    out: set = set()
    ptr = head
    while ptr and ptr not in out and len(out) < limit:
        out.add(ptr)
        at = ptr + off
        try:
            word = prog.read_word(at)
        except fault:
            break
        ptr = word if rand is None else \
            word ^ rand ^ int.from_bytes(at.to_bytes(8, "little"), "big")
    return out


MAX_SHEAF = 1 << 12
"""Objects read from one sheaf at most (a sheaf holds sheaf_capacity
of them, tens; a torn size is not trusted beyond this)."""

MAX_SHEAVES = 1 << 12
"""Full sheaves read from one node's barn at most."""


def _cpu_freelists(prog, cache) -> dict:
    """The objects free to allocate outside the slabs' own freelists:
    slab address -> the objects on the freelist of the CPU that allocates
    from that slab (up to 6.x's per-CPU slab), and under the key None the
    objects cached in sheaves (7.x's SLUB keeps freed objects in per-CPU
    sheaves and the per-node barn's full ones, out of their slabs)."""
    from drgn.helpers.linux.cpumask import for_each_online_cpu
    from drgn.helpers.linux.percpu import per_cpu_ptr
    out: dict = {}
    if not hasattr(cache, "cpu_slab"):
        return {None: _sheaved(prog, cache)}
    for cpu in for_each_online_cpu(prog):
        c = per_cpu_ptr(cache.cpu_slab, cpu)
        slab = c.slab if hasattr(c, "slab") else c.page
        if int(slab) and int(c.freelist):
            out.setdefault(int(slab), set()).update(
                _freelist(prog, cache, int(c.freelist), int(slab.objects)))
    return out


def _sheaved(prog, cache) -> set:
    """The objects in *cache*'s sheaves: each online CPU's main, spare and
    kfree_rcu() ones, and the full sheaves of each node's barn, each read
    up to its size (at most :data:`MAX_SHEAF`).  A sheaf a caller holds
    (kmem_cache_prefill_sheaf()) is nowhere to be found: its objects read
    as allocated."""
    from drgn.helpers.linux.cpumask import for_each_online_cpu
    from drgn.helpers.linux.list import list_for_each_entry
    from drgn.helpers.linux.percpu import per_cpu_ptr
    out: set = set()
    if not int(cache.cpu_sheaves):
        return out
    for cpu in for_each_online_cpu(prog):
        pcs = per_cpu_ptr(cache.cpu_sheaves, cpu)
        for sheaf in (pcs.main, pcs.spare, pcs.rcu_free):
            out |= _sheaf(sheaf)
    nodes = cache.per_node
    for i in range(len(nodes)):
        barn = nodes[i].barn
        if not int(barn):
            continue
        full = list_for_each_entry("struct slab_sheaf",
                                   barn.sheaves_full.address_of_(),
                                   "barn_list")
        for _, sheaf in zip(range(MAX_SHEAVES), full):
            out |= _sheaf(sheaf)
    return out


def _sheaf(sheaf) -> set:
    """The object addresses in one sheaf (NULL: none)."""
    if not int(sheaf):
        return set()
    n = min(int(sheaf.size), MAX_SHEAF)
    return {int(sheaf.objects[i]) for i in range(n)}


def _free(prog, cache, slab, cpu: dict) -> set:
    """The free objects of *slab* (a ``slab_type()`` object of *cache*):
    those on its freelist, on its CPU's and in the cache's sheaves (*cpu*,
    from :func:`_cpu_freelists`)."""
    return _freelist(prog, cache, int(slab.freelist), int(slab.objects)) | \
        cpu.get(int(slab), set()) | cpu.get(None, set())


def _objects(prog, cache, page: int, cpu: dict) -> list:
    """The allocated objects of the slab page at *page* of *cache*: those
    not :func:`_free`."""
    from drgn.helpers.linux.mm import page_to_virt
    drgn = _drgn()
    obj = drgn.Object(prog, "struct page *", value=page)
    slab = drgn.cast(slab_type(prog), obj)
    size, objects = int(cache.size), int(slab.objects)
    first = int(page_to_virt(obj)) + _red_left_pad(cache)
    free = _free(prog, cache, slab, cpu)
    return [a for a in range(first, first + size * objects, size)
            if a not in free]


def _red_left_pad(cache) -> int:
    """Bytes of red zone before each object (SLUB debug), or 0."""
    try:
        return int(cache.red_left_pad)
    except AttributeError:
        return 0


MAX_FOLIO_PAGES = 1 << 18
"""Pages of a compound page at most (a 1 GiB folio of 4 KiB pages)."""


def compound_head(prog, page):
    """The head of the compound page *page* (a ``struct page *``) belongs
    to, or *page*.  drgn 0.0.22's helper reads page->compound_head, which
    7.x replaced by compound_info: bit 0 marks a tail, and the rest is the
    head's address or, with HugeTLB's vmemmap optimisation, a mask that
    gives it from the tail's; the one of the two that names a struct page
    at most :data:`MAX_FOLIO_PAGES` before *page* is it (a mask's value
    minus one lies above every struct page)."""
    drgn = _drgn()
    if not page.type_.type.has_member("compound_info"):
        from drgn.helpers.linux.mm import compound_head as head
        return head(page)
    size = page.type_.type.size
    at = int(page)
    info = prog.read_word(at + drgn.offsetof(page.type_.type,
                                             "compound_info"))
    if not info & 1:
        return page
    for head in (info - 1, at & info):
        if head <= at and (at - head) % size == 0 and \
                (at - head) // size < MAX_FOLIO_PAGES:
            return drgn.Object(prog, page.type_, value=head)
    raise ValueError(f"struct page {at:#x}: compound_info {info:#x} "
                     "names no head")


def allocated(prog, addr: int, cache: str) -> bool:
    """Whether *addr* still lies in an allocated object of the SLUB cache
    named *cache*: False once its page is not a slab page of that cache
    (freed, given to other data) or the object is on its slab's freelist
    or on a CPU's; True where this cannot be told (the verdict then
    stands).  The slab test is the route's own (PG_slab, or 6.10's page
    type), not drgn 0.0.22's PageSlab(), which knows only the flag."""
    drgn = _drgn()
    if not isinstance(prog, drgn.Program):
        return True
    try:
        from drgn.helpers.linux.mm import page_to_virt, virt_to_page
        lo = int(prog["min_low_pfn"])
        hi = int(prog["max_pfn"])
        page = virt_to_page(prog, addr)
        pfn = (int(page) - int(prog["vmemmap"])) // page.type_.type.size
        if not lo <= pfn < hi:
            return False            # not in the direct map: no slab
        off, mask, want = _slab_test(prog)
        try:
            page = compound_head(prog, page)
            data = prog.read(int(page) + off, 8)
        except drgn.FaultError:
            return False            # no struct page there: no slab
        if not _is_slab(data, 0, mask, want):
            return False
        slab = drgn.cast(slab_type(prog), page)
        kmem = slab.slab_cache
        if kmem.name.string_().decode(errors="replace") != cache:
            return False
        size, objects = int(kmem.size), int(slab.objects)
        first = int(page_to_virt(page)) + _red_left_pad(kmem)
        index = (addr - first) // size
        if not 0 <= index < objects:
            return False
        return first + index * size not in \
            _free(prog, kmem, slab, _cpu_freelists(prog, kmem))
    except (ImportError, drgn.FaultError, LookupError, ValueError,
            AttributeError, TypeError, NotImplementedError):
        return True
