from django.urls import path

from office import views
from office.people import views as people_views

app_name = "office"
urlpatterns = [
    path("", views.office_home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("start/", views.office_start_view, name="start"),
    path("employees/hire/", views.employee_hire_view, name="hire"),
    path("employees/<int:employee_id>/", views.employee_edit_view, name="employee"),
    path("projects/new/", views.project_create_view, name="project_new"),
    path("import/", views.import_view, name="import"),
    path("projects/<int:channel_id>/", views.project_edit_view, name="project"),
    path(
        "projects/<int:channel_id>/archive/",
        views.project_archive_view,
        name="project_archive",
    ),
    path("language/", views.language_view, name="language"),
    path("time-zone/", views.time_zone_view, name="time_zone"),
    path("cost/", views.cost_view, name="cost"),
    path("c/<int:channel_id>/", views.chat, name="chat"),
    path(
        "c/<int:channel_id>/sessions/<int:session_id>/name/",
        views.session_name_view,
        name="session_name",
    ),
    path("search/", views.search_view, name="search"),
    path("people/invite/", people_views.invite_view, name="invite"),
    path(
        "people/invitations/<int:invitation_id>/withdraw/",
        people_views.invitation_withdraw_view,
        name="invitation_withdraw",
    ),
    path("people/<int:user_id>/remove/", people_views.member_remove_view, name="member_remove"),
    path("people/leave/", people_views.leave_view, name="leave"),
    path("offices/switch/", people_views.switch_view, name="switch"),
    path("join/<str:secret>/", people_views.join_view, name="join"),
]
