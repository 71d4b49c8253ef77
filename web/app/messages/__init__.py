"""What can happen to the page, as small frozen values: a tap, a typed form, another tab. Each is
read by `update` (web/app/update); the runtime makes them from DOM events. A message that may roll
dice carries the `rng` to roll with (randomness is a parameter, as in the engine).

Split by area (web/app/messages/page.py: the fight, the roller, the sheets, encounters, characters;
web/app/messages/live.py: the live table); everything is imported from here, and `Message` is the union
`update` dispatches over (tests/unit/test_update.py checks each has an update)."""

from __future__ import annotations

from web.app.messages.live import (
    AnswerMade,
    AttackSent,
    AutoDoneToggled,
    AutoSavesToggled,
    ClaimReleased,
    ClaimTapped,
    CodeRead,
    ConditionRulesAsked,
    CreaturePicked,
    DeathSaveSent,
    DirectFailed,
    DisplayOpened,
    DoneTapped,
    EncountersImported,
    HealSent,
    InitiativeRolled,
    InitiativeSent,
    LibraryFailed,
    LibraryLoaded,
    LibraryRetried,
    LibrarySearched,
    LiveAttackPicked,
    LiveBeat,
    LiveFollowed,
    LiveKeyKnown,
    LiveLinkOpened,
    LiveOpened,
    LiveResumed,
    LiveStopped,
    LiveTicked,
    OfferMade,
    OfflineStarted,
    PairingFailed,
    PeerChanged,
    PeerSaid,
    PlayerPanelToggled,
    PlayerTargetPicked,
    RelaysChecked,
    RequestAnswered,
    RequestResent,
    RollSent,
    ScanOpened,
    ServersSaved,
    TrayToggled,
)
from web.app.messages.page import (
    Act,
    AddressChanged,
    AttackApplied,
    AttackConfigured,
    AttackLastTapped,
    AttackOptionsSaved,
    AttackPicked,
    AttackRemoved,
    AttackRolled,
    BackupKnown,
    BatchApplied,
    CharacterDeleted,
    CharacterOffered,
    CharacterOpened,
    CharacterRestored,
    CharacterSaved,
    CharacterTaken,
    CollectionChanged,
    CollectionStored,
    CombatantAdded,
    CombatantRemembered,
    DiceTyped,
    EarlyViewLeft,
    EncounterCopied,
    EncounterCreated,
    EncounterDeleted,
    EncounterPicked,
    EncounterRestored,
    Exported,
    FightChangedElsewhere,
    FightShown,
    FileImported,
    FileRead,
    FirstTime,
    HistoryCleared,
    HistoryTrimmed,
    HitPointsTyped,
    InitiativeEntered,
    JournalAnswered,
    JournalFailed,
    JournalRefused,
    LinkCopied,
    LogToggled,
    NameTyped,
    NextTurnTapped,
    Noticed,
    NoticeDismissed,
    OddsTargetTyped,
    PageDrawn,
    PageReady,
    QuickAdded,
    QuickDieTapped,
    RedoTapped,
    ReloadTapped,
    RollSaved,
    RollTyped,
    SavedRollDeleted,
    SavedRollRestored,
    SavedRollTapped,
    SectionPicked,
    SelectingToggled,
    SelectionToggled,
    ShareLinkAsked,
    ShareOffered,
    ShareOpened,
    SheetClosed,
    SheetOpened,
    SidePicked,
    StartTapped,
    StorageAsked,
    StorageKept,
    StoredElsewhere,
    TargetDescribed,
    TargetPicked,
    ThemeToggled,
    ToolAdded,
    ToolKindPicked,
    UndoTapped,
    ViewOpened,
    VisibilityChanged,
)
from web.app.messages.saves import (
    SaveConfigured,
    SaveLegendaryToggled,
    SavePanelOpened,
    SavesApplied,
    SavesAsked,
    SaveSent,
    SavesRolled,
    SaveTargetsPicked,
    SpellPicked,
    SpellSent,
)
from web.app.messages.timers import EstimateGoesOn, OddsDue, Refused, SheetDue, SliceDue, ToastTimedOut

__all__ = [
    "Act", "NextTurnTapped", "StartTapped", "InitiativeEntered", "UndoTapped", "RedoTapped", "HitPointsTyped",
    "BatchApplied", "QuickAdded", "AttackApplied", "SelectingToggled", "SelectionToggled", "SectionPicked",
    "ToolKindPicked", "ToolAdded", "CombatantRemembered", "SavedRollDeleted", "SavedRollRestored", "CharacterDeleted",
    "CharacterRestored", "CombatantAdded", "RollTyped", "SavedRollTapped", "RollSaved", "QuickDieTapped", "DiceTyped",
    "AttackRolled", "CharacterSaved", "ShareOffered", "ShareOpened", "EncounterCreated", "EncounterCopied",
    "EncounterDeleted", "EncounterRestored", "HistoryCleared", "NoticeDismissed", "SheetOpened", "SheetClosed", "EarlyViewLeft",
    "AttackLastTapped", "TargetPicked", "AttackConfigured", "ThemeToggled", "Exported", "ShareLinkAsked", "LinkCopied",
    "ReloadTapped", "EncounterPicked", "HistoryTrimmed", "FileImported", "FightChangedElsewhere", "StoredElsewhere", "JournalRefused", "JournalAnswered", "VisibilityChanged", "LogToggled", "AddressChanged", "FileRead", "PageDrawn", "PageReady", "FirstTime",
    "CollectionChanged", "CollectionStored", "FightShown", "Noticed", "Refused", "ToastTimedOut", "SheetDue", "OddsDue", "EstimateGoesOn", "SliceDue", "StorageAsked", "JournalFailed", "StorageKept", "BackupKnown", "ViewOpened",
    "CharacterOpened", "CharacterOffered", "CharacterTaken", "AttackPicked", "AttackRemoved", "AttackOptionsSaved",
    "TargetDescribed", "SidePicked", "NameTyped", "OddsTargetTyped", "LiveOpened", "LiveResumed", "LiveStopped", "LiveFollowed", "LiveLinkOpened",
    "PeerChanged", "PeerSaid", "LiveTicked", "LiveKeyKnown", "LiveBeat", "RequestAnswered", "RequestResent",
    "AutoDoneToggled", "ClaimReleased", "ClaimTapped", "InitiativeSent", "InitiativeRolled", "DoneTapped", "RollSent", "AttackSent", "HealSent",
    "DeathSaveSent", "PlayerPanelToggled", "PlayerTargetPicked", "TrayToggled", "AutoSavesToggled", "LiveAttackPicked",
    "ServersSaved", "DisplayOpened", "OfflineStarted", "OfferMade", "ScanOpened", "CodeRead", "AnswerMade",
    "PairingFailed", "DirectFailed", "EncountersImported", "RelaysChecked", "LibrarySearched", "LibraryLoaded",
    "LibraryFailed", "CreaturePicked", "LibraryRetried", "ConditionRulesAsked", "SavePanelOpened", "SaveConfigured",
    "SaveTargetsPicked", "SavesRolled", "SaveLegendaryToggled", "SavesApplied", "SavesAsked", "SaveSent", "SpellPicked", "SpellSent", "Message"
]

Message = (Act | Refused | ToastTimedOut | SheetDue | OddsDue | EstimateGoesOn | SliceDue | StorageAsked | JournalFailed | LiveKeyKnown | Noticed | FightShown | CollectionStored | LiveBeat | NextTurnTapped | StartTapped | InitiativeEntered | UndoTapped | RedoTapped | HitPointsTyped |
           BatchApplied | QuickAdded | AttackApplied | SelectingToggled | SelectionToggled | SectionPicked | ToolKindPicked | ToolAdded | CombatantRemembered |
           SavedRollDeleted | SavedRollRestored | CharacterDeleted | CharacterRestored | CombatantAdded | RollTyped |
           SavedRollTapped | RollSaved | QuickDieTapped | DiceTyped | AttackRolled | CharacterSaved | ShareOffered |
           ShareOpened | EncounterCreated | EncounterCopied | EncounterDeleted | EncounterRestored | HistoryCleared |
           NoticeDismissed | SheetOpened | SheetClosed | EarlyViewLeft | AttackLastTapped | TargetPicked | AttackConfigured |
           ThemeToggled | Exported | ShareLinkAsked | LinkCopied | ReloadTapped | EncounterPicked | HistoryTrimmed |
           FileImported | FightChangedElsewhere | StoredElsewhere | JournalRefused | JournalAnswered | VisibilityChanged | LogToggled | AddressChanged | FileRead | PageDrawn | PageReady | FirstTime | CollectionChanged | StorageKept | BackupKnown | ViewOpened | CharacterOpened |
           CharacterOffered | CharacterTaken | AttackPicked | AttackRemoved | AttackOptionsSaved | TargetDescribed |
           SidePicked | NameTyped | OddsTargetTyped | LiveOpened | LiveResumed | LiveStopped | LiveFollowed | LiveLinkOpened | PeerChanged | PeerSaid | LiveTicked |
           DisplayOpened | RequestAnswered | RequestResent | AutoDoneToggled | ClaimReleased | ClaimTapped | InitiativeSent | InitiativeRolled | DoneTapped | RollSent |
           LiveAttackPicked | AttackSent | HealSent | DeathSaveSent | PlayerPanelToggled | PlayerTargetPicked | TrayToggled | AutoSavesToggled | ServersSaved | OfflineStarted | OfferMade | ScanOpened | CodeRead | AnswerMade |
           PairingFailed | DirectFailed | RelaysChecked | EncountersImported | LibrarySearched | LibraryLoaded | LibraryFailed | LibraryRetried |
           CreaturePicked | ConditionRulesAsked | SavePanelOpened | SaveConfigured | SaveTargetsPicked | SavesRolled |
           SaveLegendaryToggled | SavesApplied | SavesAsked | SaveSent | SpellPicked | SpellSent)
