import FoundationEssentials

/// The most regex steps per character of a label that one alert could be
/// held against by the silences not yet expired, filed as a
/// ``SilenceIndex`` files them: the unfiled silences, and for each name,
/// and each length of start, the costliest value or start an alert's label
/// could have; never more than all of them. What a store bounds
/// (``Silence/maxRegexStepsInForce``): a thousand silences each filed under
/// a start of its own cost an alert a few of them, where counting every
/// silence refused the 543rd (Alertmanager takes them all).
///
/// Kept between saves, and kept filed: a save files again only the
/// silences whose filing it can change. Filed anew from every live
/// silence at each save, creating 5,000 regex silences took 5.1 s of CPU
/// where Alertmanager took about one, and each took longer than the last.
public struct SilenceBudget: Sendable {
    /// What one label of an alert finds at most one key of.
    private enum Reach: Hashable {
        case pair(name: String)
        case start(name: String, length: Int)
    }

    /// What the budget counts of a silence. Its compiled regexes are not
    /// kept: the store's filing holds them once already.
    private struct Counted: Sendable {
        var id: SilenceID
        var steps: Int
        var endsAt: Date
        var keys: SilenceIndex.NumberedKeys
        /// The group of `keys` it is filed under; nil when it has none.
        var filedUnder: Int?

        /// Only a silence with a choice of groups can be filed anew.
        var hasChoice: Bool { keys.groups.count > 1 }
    }

    /// The silences counted, by slot; a slot is free again once its
    /// silence is let go of.
    private var slots: [Counted?] = []
    private var freeSlots: [Int] = []
    private var slotOfID: [SilenceID: Int] = [:]

    private var keys = SilenceIndex.KeyNumbers()
    /// The number of each key's reach, by the key's number.
    private var reachOfKey: [Int] = []
    private var reaches: [Reach: Int] = [:]

    /// By key number: how many silences counted have the key (what
    /// ``SilenceIndex/filed(_:keyCount:)`` files by), the slots of those
    /// with a choice that have it and that are filed under it, and the steps
    /// of the silences filed under it.
    private var shared: [Int] = []
    private var having: [Set<Int>] = []
    private var choosing: [Set<Int>] = []
    private var filed: [Int] = []

    /// By reach: how many of its keys have each non-zero sum of steps filed
    /// under them, the largest of those sums, and whether that largest must
    /// be found again (the key that had it lost some).
    private var filedSums: [[Int: Int]] = []
    private var most: [Int] = []
    private var mostIsStale: [Bool] = []

    private var allSteps = 0
    private var unfiledSteps = 0
    /// The count of every counted silence's distinct keys, to know when the
    /// numbered keys are mostly those of silences let go of.
    private var keysCounted = 0
    /// At least what filing under its group costs any silence with a
    /// choice. A silence is filed anew under a group a key's fewer sharers
    /// made cheaper only when that key is still shared by no more than this.
    private var costBound = 0
    /// No counted silence ends before this.
    private var firstEnd = Date.distantFuture
    /// Up to when it has let go of the silences expired: asked about an
    /// earlier time, it no longer counts those that ended between.
    public private(set) var droppedThrough = Date.distantPast

    /// The budget of `silences` (those not yet expired count). When they
    /// are those not expired at `read` (a store's table read then), it is
    /// as if the others had been let go of then.
    public init(_ silences: some Sequence<Silence>, unexpiredAt read: Date = .distantPast) {
        var latest: [SilenceID: Silence] = [:]
        for silence in silences { latest[silence.id] = silence }
        load(latest.values.map { counted($0) })
        droppedThrough = read
    }

    /// Takes in `silence` as saved, over the one with its id.
    public mutating func save(_ silence: Silence) {
        if let slot = slotOfID[silence.id] { _ = remove(slot) }
        if silence.endsAt > droppedThrough { _ = insert(counted(silence)) }
        compactIfSparse()
    }

    /// What one alert could be held against once `new` (if any) is saved
    /// and the silence `replaced` is gone, counting those not expired at
    /// `now`. Only numbers `new`'s keys; the silences stay as they were.
    public mutating func stepsInForce(at now: Date, saving new: Silence?, replacing replaced: SilenceID? = nil) -> Int {
        letGoOfExpired(at: now)
        var removed: [Counted] = []
        for id in Set([replaced, new?.id].compactMap { $0 }) {
            if let slot = slotOfID[id] { removed.append(remove(slot)) }
        }
        let added = new.map { insert(counted($0)) }
        let steps = total()
        if let added { _ = remove(added) }
        for counted in removed { _ = insert(counted) }
        compactIfSparse()
        return steps
    }

    /// For each silence not expired at `now`, the keys it is filed under
    /// (none when it has none), as ``SilenceIndex`` files them; nil when
    /// asked about a time before it let go of some (``droppedThrough``).
    package mutating func filing(at now: Date) -> [SilenceID: [SilenceIndex.Key]]? {
        guard now >= droppedThrough else { return nil }
        letGoOfExpired(at: now)
        var filing: [SilenceID: [SilenceIndex.Key]] = [:]
        filing.reserveCapacity(slotOfID.count)
        for case let counted? in slots {
            filing[counted.id] = counted.filedUnder.map { counted.keys.groups[$0].map { keys.keys[$0] } } ?? []
        }
        return filing
    }

    /// What `silences` together could cost one alert, expired or not (their
    /// sum while it is within the bound, as ``stepsInForce(at:saving:replacing:)``).
    public static func steps(of silences: [Silence]) -> Int {
        guard let last = silences.last else { return 0 }
        return steps(of: silences.dropLast(), at: .distantPast, saving: last)
    }

    /// ``stepsInForce(at:saving:replacing:)`` of a budget made for once from
    /// `unexpired`: what a store that keeps none counts at each save.
    public static func steps(of unexpired: some Sequence<Silence>, at now: Date, saving new: Silence?,
                             replacing replaced: SilenceID? = nil) -> Int {
        var budget = SilenceBudget(unexpired, unexpiredAt: now)
        return budget.stepsInForce(at: now, saving: new, replacing: replaced)
    }

    private mutating func total() -> Int {
        guard allSteps > Silence.maxRegexStepsInForce else { return allSteps }
        for r in most.indices where mostIsStale[r] {
            most[r] = filedSums[r].keys.max() ?? 0
            mostIsStale[r] = false
        }
        return min(allSteps, most.reduce(unfiledSteps, +))
    }

    // MARK: Filing

    /// Files every one of `silences` at once, each as the sharing of all of
    /// them has it, as ``SilenceIndex/filed(_:keyCount:)`` does.
    private mutating func load(_ silences: [Counted]) {
        var loaded: [Int] = []
        loaded.reserveCapacity(silences.count)
        for counted in silences { loaded.append(take(counted)) }
        for slot in loaded { file(slot) }
    }

    /// Counts `counted` in a slot of its own, not yet filed.
    private mutating func take(_ counted: Counted) -> Int {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = counted
        } else {
            slot = slots.count
            slots.append(counted)
        }
        slotOfID[counted.id] = slot
        allSteps += counted.steps
        keysCounted += counted.keys.distinct.count
        firstEnd = min(firstEnd, counted.endsAt)
        for n in counted.keys.distinct {
            shared[n] += 1
            if counted.hasChoice { having[n].insert(slot) }
        }
        return slot
    }

    /// Counts `counted` and files it, and files again those its keys may
    /// have moved: only a silence filed under one of them, which now costs
    /// more.
    private mutating func insert(_ counted: Counted) -> Int {
        var moved: Set<Int> = []
        for n in counted.keys.distinct { moved.formUnion(choosing[n]) }
        let slot = take(counted)
        file(slot)
        for other in moved { refile(other) }
        return slot
    }

    /// Lets go of the silence in `slot`, and files again those its keys
    /// may have moved: one with a group that has one of them, now cheaper,
    /// unless the key is still shared by more than any group's cost.
    private mutating func remove(_ slot: Int) -> Counted {
        unfile(slot)
        let counted = slots[slot]!
        slots[slot] = nil
        freeSlots.append(slot)
        if slotOfID[counted.id] == slot { slotOfID[counted.id] = nil }
        allSteps -= counted.steps
        keysCounted -= counted.keys.distinct.count
        var moved: Set<Int> = []
        for n in counted.keys.distinct {
            shared[n] -= 1
            if counted.hasChoice { having[n].remove(slot) }
            if shared[n] <= costBound { moved.formUnion(having[n]) }
        }
        for other in moved { refile(other) }
        return counted
    }

    /// The group the silence in `slot` is filed under as the keys are
    /// shared now: the cheapest, the first such (``SilenceIndex/filed(_:keyCount:)``).
    private func cheapest(_ slot: Int) -> (group: Int?, cost: Int) {
        var best: (group: Int?, cost: Int) = (nil, 0)
        for (g, group) in slots[slot]!.keys.groups.enumerated() {
            let cost = group.reduce(0) { $0 + shared[$1] }
            if best.group == nil || cost < best.cost { best = (g, cost) }
        }
        return best
    }

    private mutating func file(_ slot: Int) {
        let (group, cost) = cheapest(slot)
        slots[slot]!.filedUnder = group
        let counted = slots[slot]!
        guard let group else { return unfiledSteps += counted.steps }
        if counted.hasChoice { costBound = max(costBound, cost) }
        for n in counted.keys.groups[group] {
            addFiled(counted.steps, to: n)
            if counted.hasChoice { choosing[n].insert(slot) }
        }
    }

    private mutating func unfile(_ slot: Int) {
        let counted = slots[slot]!
        guard let group = counted.filedUnder else { return unfiledSteps -= counted.steps }
        for n in counted.keys.groups[group] {
            addFiled(-counted.steps, to: n)
            if counted.hasChoice { choosing[n].remove(slot) }
        }
        slots[slot]!.filedUnder = nil
    }

    private mutating func refile(_ slot: Int) {
        guard slots[slot] != nil else { return }
        let (group, cost) = cheapest(slot)
        costBound = max(costBound, cost)
        guard group != slots[slot]!.filedUnder else { return }
        unfile(slot)
        file(slot)
    }

    private mutating func addFiled(_ steps: Int, to n: Int) {
        let r = reachOfKey[n]
        let old = filed[n], new = old + steps
        filed[n] = new
        if old > 0 {
            let left = filedSums[r][old]! - 1
            filedSums[r][old] = left == 0 ? nil : left
            if old == most[r] && left == 0 { mostIsStale[r] = true }
        }
        if new > 0 {
            filedSums[r][new, default: 0] += 1
            if new > most[r] { most[r] = new }
        }
    }

    // MARK: Letting go

    private mutating func letGoOfExpired(at now: Date) {
        guard now >= firstEnd else { return }
        let expired = slots.indices.filter { slots[$0].map { $0.endsAt <= now } ?? false }
        droppedThrough = max(droppedThrough, now)
        // Many at once are quicker filed anew than let go of one by one.
        if expired.count > 64 && expired.count * 4 > slotOfID.count {
            refiled()
        } else {
            for slot in expired { _ = remove(slot) }
            firstEnd = slots.lazy.compactMap { $0?.endsAt }.min() ?? .distantFuture
        }
    }

    /// Starts over when most numbered keys are those of silences let go
    /// of: they would otherwise be kept for good.
    private mutating func compactIfSparse() {
        if keys.count > 2 * keysCounted + 256 { refiled() }
    }

    /// Starts over from the silences counted and not expired, numbering
    /// their keys anew.
    private mutating func refiled() {
        var fresh = SilenceBudget([])
        let live = slots.compactMap { $0 }.filter { $0.endsAt > droppedThrough }.map { counted in
            var moved = counted
            moved.keys = SilenceIndex.NumberedKeys(counted.keys.groups.map { $0.map { fresh.number(keys.keys[$0]) } })
            moved.filedUnder = nil
            return moved
        }
        fresh.load(live)
        fresh.droppedThrough = droppedThrough
        self = fresh
    }

    private mutating func counted(_ silence: Silence) -> Counted {
        let groups = SilenceIndex.keys(silence).map { $0.map { number($0) } }
        return Counted(id: silence.id, steps: silence.regexSteps, endsAt: silence.endsAt,
                       keys: SilenceIndex.NumberedKeys(groups), filedUnder: nil)
    }

    private mutating func number(_ key: SilenceIndex.Key) -> Int {
        let (n, isNew) = keys.number(key)
        guard isNew else { return n }
        let reach: Reach = switch key {
        case .pair(let name, _): .pair(name: name)
        case .start(let name, let scalars): .start(name: name, length: scalars.count)
        }
        let r = reaches[reach] ?? reaches.count
        if r == reaches.count {
            reaches[reach] = r
            filedSums.append([:])
            most.append(0)
            mostIsStale.append(false)
        }
        reachOfKey.append(r)
        shared.append(0)
        having.append([])
        choosing.append([])
        filed.append(0)
        return n
    }
}
