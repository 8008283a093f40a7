"""The expert's calls: the heuristic bidder proposes, simulation over sampled deals decides.

For a call that would make this seat play alone (a solo, an abondance or abundance, a misère, piccolo, a
chelem), the bot draws weighted deals of the hidden cards (`worlds.py`), plays each one out with the
contract the call would give (`solver.greedy_playout`: every hand seen, simple greedy play; exact search
of 13 cards is out of reach in pure Python), and estimates how often the contract is made. A call whose
estimated chance is below `VETO` is replaced by a pass (misères: `MISERE_VETO` per ruleset). Trump is
named by the same simulation: the suit in which the playouts give this seat's side the best mean points,
with the seat the contract makes lead. Team calls (proposals, acceptances, raises) stay with the
heuristic bidder: the partner is not known when they are made. So does the club bouche-trou's trump
(docs/rules.md §3): there the greedy playouts named another suit in a third of the trous, with no more trous
made (docs/bots.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.rules.cards import SUITS

from .evaluate import best_suits, misere_card_risks
from .knowledge import rank
from .simulation import simulate_action
from .solver import greedy_playout, to_mask
from .worlds import World, WorldSource

View = Mapping[str, Any]

#: A lone call whose simulated chance of being made is below this is not made.
VETO = 0.3
#: Per ruleset, the threshold for misère calls instead (0: never vetoed). The greedy playout does not
#: tell a misère that will be made from one that will not, and passing is no safe option: it mostly
#: hands the opponents a contract (in `belge-club` an emballage whose defenders lose 8 each). Finishing
#: both branches with four heuristic bots (`bench/veto_value.py`), calling beat passing on the petites
#: misères this veto removed: `belge-club` +8.5 [+4.0, +13.1] points (2v2 measure) over 58 vetoes in 916
#: deals, `couleur` +9.9 [+5.5, +14.2] over 41 in 648 (docs/bots.md, "The belge-club weak spot").
#: `solo-whist` keeps the veto: it removed one misère in 459 deals.
MISERE_VETO = {"belge-club": 0.0, "couleur": 0.0}

_MISERES = {"misere", "petite-misere", "grande-misere", "misere-etalee", "spread-misere",
            "petite-misere-etalee", "grande-misere-etalee"}


def choose_call(view: View, seed: str, fallback: str, worlds: WorldSource) -> str | None:
    """The call to make (None: the heuristic's `fallback`); `worlds` gives the deals to simulate."""
    phase = view.get("phase")
    if phase == "trump" or (phase == "auction" and fallback.startswith("trump ")):
        return _name_trump(view, seed, fallback, worlds)
    if phase != "auction" or fallback == "pass" or "pass" not in view["legal"]:
        return None
    spec = _lone_contract(view, fallback)
    if spec is None:
        return None
    trump, level, declarer_leads = spec
    threshold = MISERE_VETO.get(str(view.get("ruleset")), VETO) if level == 0 else VETO
    if threshold <= 0:
        return fallback
    seat = int(view["seat"])
    made = 0.0
    total = 0
    for world in worlds(view, seed):
        taken = _playout(view, world, (seat,), trump, level, declarer_leads)
        ok = taken == level if level <= 1 else taken >= level
        made += world.weight * ok
        total += world.weight
    if total and made / total < threshold:
        return "pass"
    return fallback


def _lone_contract(view: View, action: str) -> tuple[str | None, int, bool] | None:
    """(trump, tricks needed, declarer leads) of a lone call, or None for other calls."""
    verb, *args = action.split(" ")
    turn_up = view.get("turn_up")
    hand = list(view["hand"])
    if verb in _MISERES:
        return None, 0, False
    if verb == "piccolo":
        return None, 1, False
    if verb == "solo":
        if args:  # couleur, belge-club: solo N S
            return args[1], int(args[0]), False
        return (turn_up[1] if turn_up else best_suits(hand)[0][1]), 5, False
    if verb == "abondance":
        return args[1], int(args[0]), True
    if verb in ("abundance", "royal-abundance"):
        suits = [s for s in SUITS if verb == "royal-abundance" or not turn_up or s != turn_up[1]]
        trump = turn_up[1] if verb == "royal-abundance" and turn_up else best_suits(hand, suits)[0][1]
        return trump, 9, False
    if verb in ("abundance-declared", "grand-chelem", "petit-chelem"):
        need = 12 if verb == "petit-chelem" else 13
        named = args[0] if args else best_suits(hand)[0][1]  # abundance declared: named after
        return (None if named == "NT" else named), need, True
    return None


def _playout(view: View, world: World, declarers: Sequence[int], trump: str | None, level: int,
             declarer_leads: bool) -> int:
    """The declarers' tricks in one greedy playout of the world's hands as dealt."""
    hands = [to_mask(hand) for hand in world.sample.hands]
    side_a = tuple(s in declarers for s in range(4))
    maximizes = tuple((not a) if level == 0 else a for a in side_a)
    leader = declarers[0] if declarer_leads else int(view["eldest"])
    return greedy_playout(hands, leader, trump, side_a, maximizes)


def _name_trump(view: View, seed: str, fallback: str, worlds: WorldSource) -> str | None:
    """The trump suit whose playouts give this seat's side the most tricks (ties: the heuristic's)."""
    legal = [str(a) for a in view["legal"] if str(a).startswith("trump ")]
    if len(legal) < 2:
        return None
    if _answering_trou(view):
        return None  # the bouche-trou's suit: the heuristic's hand evaluation, with his partner's aces
    seat = int(view["seat"])
    contract = view.get("contract") or {}
    declarers = tuple(int(s) for s in contract.get("declarers") or [seat])
    trou = _trou(view)
    if not contract and trou is not None:
        declarers = (int(trou["seat"]), int(trou["partner"]))
    leader = simulation_leader(view)
    drawn = worlds(view, seed)
    means: dict[str, float] = {}
    for action in legal:
        suit = action.split(" ")[1]
        trump = None if suit == "NT" else suit
        hands_total = 0.0
        weight = 0
        for world in drawn:
            hands = [to_mask(hand) for hand in world.sample.hands]
            side_a = tuple(s in declarers for s in range(4))
            hands_total += world.weight * greedy_playout(hands, leader, trump, side_a, side_a)
            weight += world.weight
        means[action] = hands_total / weight if weight else 0.0
    best = max(means.values())
    if means.get(fallback, -1.0) >= best - 0.25:
        return fallback  # within the noise of the playouts: trust the hand evaluation
    return max(legal, key=lambda a: (means[a], a))


def _trou(view: View) -> Mapping[str, Any] | None:
    """The trou announcement of this deal, if any."""
    return next((e for e in view.get("announcements") or [] if e.get("type") == "trou"), None)


def _answering_trou(view: View) -> bool:
    """Whether this seat is the club's bouche-trou answering the trou (no contract yet)."""
    trou = _trou(view)
    return not view.get("contract") and trou is not None and int(trou["partner"]) == int(view["seat"])


def simulation_leader(view: View) -> int:
    """The seat that leads trick 1 of the contract whose trump this seat names: the trou's partner (the
    bouche-trou, D12) in a trou, the declarer of a declared abundance, eldest otherwise."""
    trou = _trou(view)
    contract = view.get("contract") or {}
    if trou is not None and (not contract or contract.get("name") == "trou"):
        return int(trou["partner"])
    if contract.get("name") == "abundance-declared":
        return int(view["seat"])
    return int(view["eldest"])



# -------------------------------------------------------------------- calls by simulation

#: Solver nodes for one simulated deal's play at most (a whole deal rarely fits: the greedy playout then).
SIM_NODES = 40_000
#: Worlds simulated per call decision at most.
SIM_WORLDS = 8
#: An alternative suit replaces the heuristic's trump only when its simulated mean is better by this
#: many points: the estimates are noisy (a few worlds) and biased (every hand known; greedy past the limit).
MARGIN = 1.0
#: The same for a pass instead of the heuristic's call, and for another discard; None: they are not
#: simulated (the heuristic's call and discard stand). Measured on 150 deals per ruleset finished both
#: ways by heuristic bots (docs/bots.md, "Calls by simulation"), the changes a 1-point margin made were
#: worth -1.9 [-4.4, +0.7] points (couleur, 60 changes) and -1.5 [-3.9, +0.8] (solo-whist, 34), and
#: with 8 points still -7.2 [-16.4, +2.1] (couleur, 12), -0.7 [-4.5, +3.0] (solo-whist, 14), -4.2
#: [-11.8, +3.3] (belge-club, 17): with today's solver most whole-deal estimates are greedy playouts.
#: A faster solver (whole deals within `SIM_NODES`) may make a finite margin pay: measure it again.
OVERRIDE_MARGIN: float | None = None

#: Discards simulated in a petite misère: the heuristic's and the next most dangerous cards.
DISCARDS = 3


def call_candidates(view: View, fallback: str) -> list[str]:
    """The actions simulated for this decision, the heuristic's `fallback` first (one: nothing to do)."""
    legal = [str(a) for a in view["legal"]]
    phase = view.get("phase")
    if phase == "trump" or (phase == "auction" and fallback.startswith("trump ")):
        return [fallback, *(a for a in legal if a.startswith("trump ") and a != fallback)]
    if phase == "discard":
        hand = list(view["hand"])
        contract = view.get("contract") or {}
        if int(view["seat"]) in (contract.get("declarers") or []):
            ranked = [card for _, card in misere_card_risks(hand)]
        else:
            ranked = []
        ranked += sorted(hand, key=lambda c: (-rank(c), c[1]))
        picks = [fallback]
        for card in ranked:
            if len(picks) >= DISCARDS:
                break
            if f"discard {card}" in legal and f"discard {card}" not in picks:
                picks.append(f"discard {card}")
        return picks
    if phase == "auction" and fallback != "pass" and "pass" in legal:
        return [fallback, "pass"]
    return [fallback]


def simulated_means(view: View, seed: str, candidates: Sequence[str], worlds: WorldSource,
                    node_budget: int) -> dict[str, float]:
    """Each candidate's mean points for this seat over the worlds where every candidate replays."""
    drawn = worlds(view, seed)[:SIM_WORLDS]
    if not drawn:
        return {}
    limit = max(1, min(SIM_NODES, node_budget // (len(drawn) * len(candidates))))
    totals = dict.fromkeys(candidates, 0.0)
    weight = 0
    for world in drawn:
        values = [simulate_action(view, world.sample, action, limit) for action in candidates]
        if any(v is None for v in values):
            continue
        weight += world.weight
        for action, value in zip(candidates, values, strict=True):
            totals[action] += world.weight * float(value or 0.0)
    return {action: total / weight for action, total in totals.items()} if weight else {}


def choose_call_by_simulation(view: View, seed: str, fallback: str, worlds: WorldSource,
                              node_budget: int,
                              override_margin: float | None = OVERRIDE_MARGIN) -> str | None:
    """The call, trump or discard to make (None: the heuristic's `fallback`).

    Each candidate (`call_candidates`: every trump suit; the heuristic's call or a pass; the most
    dangerous discards) is made in each sampled world, the rest of the auction is played by the model
    of the seats (the heuristic bot) and the play estimated with every hand known (`simulation.py`);
    the best mean wins unless the heuristic's choice is within `MARGIN` (trump) or `override_margin`
    (a pass, a discard; None, the default `OVERRIDE_MARGIN`: not simulated, measured no better, and
    today's expert's `choose_call` decides: the greedy veto of lone calls). Misères and piccolo keep that
    greedy veto in any case (a full-information estimate cannot tell a misère that will be made: the
    defenders see every card).
    """
    verb = fallback.split(" ")[0]
    if view.get("phase") == "auction" and (verb in _MISERES or verb == "piccolo"):
        return choose_call(view, seed, fallback, worlds)
    candidates = call_candidates(view, fallback)
    trump = fallback.startswith("trump ")
    if not trump and override_margin is None:
        return choose_call(view, seed, fallback, worlds)  # today's expert: the greedy veto of lone calls
    if len(candidates) < 2:
        return None
    means = simulated_means(view, seed, candidates, worlds, node_budget)
    if not means:
        return None
    best = max(means.values())
    if means[fallback] >= best - (MARGIN if trump or override_margin is None else override_margin):
        return fallback
    return min((a for a, v in means.items() if v >= best - 1e-9))
